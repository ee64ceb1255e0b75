/** Names and strings spelled into DuckDB SQL text, for the lake's modules that build statements. */

/** A quoted identifier (a column or table name), any double quote in it doubled. */
export const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A string literal, any single quote in it doubled. */
export const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;
