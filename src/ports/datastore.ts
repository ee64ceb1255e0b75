/** The service's own tables: concepts, orders and jobs. */
export interface DatastoreStatus {
  initialized: boolean;
  /** Names of applied migrations, oldest first. */
  migrations: string[];
  pending: string[];
}

export interface DatastoreAdmin {
  status(): Promise<DatastoreStatus>;
  /** Creates the schema and seeds reference data (concepts); idempotent. */
  initialize(): Promise<DatastoreStatus>;
  /** Applies pending migrations only. */
  migrate(): Promise<DatastoreStatus>;
  close(): Promise<void>;
}

export interface ConceptCollection {
  id: string;
  properties: Record<string, unknown>;
}

export interface ConceptProcessing {
  derived_indice: string;
  dggs_refinement_level: number;
  color_ramp?: string | null;
  notes?: string | null;
}

export interface Concept {
  id: number;
  name: string;
  ui_label: string;
  ui_description: string;
  category: string;
  collections: ConceptCollection[];
  processing: ConceptProcessing[];
}

export interface ConceptStore {
  listConcepts(): Promise<Concept[]>;
  getConcept(id: number): Promise<Concept | undefined>;
}

export type OrderStatus = 'accepted' | 'running' | 'successful' | 'failed' | 'dismissed';
export type JobStatus = 'accepted' | 'running' | 'successful' | 'failed' | 'dismissed';

export interface Job {
  id: number;
  orderId: number;
  status: JobStatus;
  /** What the job computes: one zone of one collection at one grid. */
  collection: string;
  dggrs: string;
  zoneId: string;
  zoneDepth: number;
  progress: number;
  message: string | null;
  created: string;
  updated: string;
}

export interface Order {
  id: number;
  status: OrderStatus;
  title: string | null;
  created: string;
  updated: string;
  jobs: Job[];
}

export interface NewOrder {
  title?: string;
  jobs: { collection: string; dggrs: string; zoneId: string; zoneDepth: number }[];
}

export interface OrderStore {
  listOrders(): Promise<Order[]>;
  getOrder(id: number): Promise<Order | undefined>;
  createOrder(order: NewOrder): Promise<Order>;
  getJob(orderId: number, jobId: number): Promise<Job | undefined>;
  updateJob(jobId: number, patch: Partial<Pick<Job, 'status' | 'progress' | 'message'>>): Promise<void>;
}
