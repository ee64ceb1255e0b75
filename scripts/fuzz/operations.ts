/**
 * The operations of the live OpenAPI document, flattened: method, path template, parameters with
 * their schemas, the request body schema ($refs resolved) and whether a bearer token is needed.
 */
export type JsonSchema = Record<string, unknown>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  params: Param[];
  body?: JsonSchema;
  secured: boolean;
}

/** Routes the public document leaves out: served on the admin listener only, so on the public one a hostile client must find nothing. */
export const HIDDEN_OPERATIONS: Operation[] = [
  { id: 'adminStatus', method: 'GET', path: '/admin/status', params: [], secured: false },
  { id: 'adminInitialize', method: 'POST', path: '/admin/initialize', params: [], secured: false, body: { type: 'object' } },
  { id: 'adminMigrate', method: 'POST', path: '/admin/migrate', params: [], secured: false, body: { type: 'object' } },
];

export function operationsOf(doc: Record<string, any>): Operation[] {
  const resolve = (node: unknown, depth = 0): unknown => {
    if (depth > 30 || !node || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((n) => resolve(n, depth + 1));
    const ref = (node as { $ref?: string }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      const target = ref.slice(2).split('/').reduce<any>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      return resolve(target, depth + 1);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v, depth + 1)]));
  };
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
    const shared = (item.parameters ?? []) as unknown[];
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']) {
      const op = item[method];
      if (!op) continue;
      const params = ([...shared, ...(op.parameters ?? [])].map((p) => resolve(p)) as Record<string, any>[]).map((p) => ({
        name: String(p.name),
        in: p.in as Param['in'],
        required: Boolean(p.required) || p.in === 'path',
        schema: (p.schema ?? {}) as JsonSchema,
      }));
      const content = (resolve(op.requestBody) as Record<string, any> | undefined)?.content as Record<string, { schema?: JsonSchema }> | undefined;
      const body = content ? (content['application/json']?.schema ?? Object.values(content)[0]?.schema ?? {}) : undefined;
      const security = (op.security ?? doc.security ?? []) as unknown[];
      ops.push({ id: String(op.operationId ?? `${method} ${path}`), method: method.toUpperCase(), path, params, body, secured: security.length > 0 });
    }
  }
  return ops;
}

/** The allowed values a schema names: enum, or the "One of: a, b" list our format parameters carry. */
export function allowedValues(schema: JsonSchema): string[] {
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  const m = /One of: ([^.]+)/.exec(String(schema.description ?? ''));
  return m ? m[1]!.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

export function typeOf(schema: JsonSchema): string {
  const t = schema.type;
  if (Array.isArray(t)) return String(t.find((x) => x !== 'null') ?? 'string');
  return typeof t === 'string' ? t : 'string';
}
