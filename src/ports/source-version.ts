/**
 * The state of the data a collection is read from, as cheaply as its source tells it: answers
 * computed from the same version of the same source are the same, so HTTP validators (ETag,
 * Last-Modified) are derived from it. A source that cannot tell cheaply gives none (undefined).
 */
export interface SourceVersion {
  /** Changes whenever the data does (file names, sizes and times; object ETags; ...). */
  id: string;
  /** When the data last changed (ms since the epoch), when the source says. */
  modifiedMs?: number;
}
