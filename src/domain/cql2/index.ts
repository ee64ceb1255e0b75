export * from './ast.js';
export { Cql2SyntaxError } from './errors.js';
export { parseCql2Text } from './text-parser.js';
export { parseCql2Json } from './json-parser.js';
