/**
 * Hostile values, by family. A value is either a decoded string (percent-encoded when sent) or a
 * `raw` string sent exactly as written (for broken percent-encoding and invalid UTF-8).
 */
export type Value = string | { raw: string };

export const raw = (s: string): Value => ({ raw: s });

const deepParens = (n: number) => `${'('.repeat(n)}1=1${')'.repeat(n)}`;
const deepNot = (n: number) => `${'NOT '.repeat(n)}a=1`;
const deepJson = (n: number) => {
  let s = '{"property":"a"}';
  for (let i = 0; i < n; i++) s = `{"op":"not","args":[${s}]}`;
  return s;
};

export const BOUNDARY_NUMBERS: Value[] = [
  '0', '-0', '1', '-1', '2', '7', '15', '16', '30', '31', '64', '100', '255', '256', '1000', '1001', '10000', '10001', '65535', '65536',
  '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967296', '9007199254740991', '9007199254740993', '18446744073709551616',
  '1e308', '1e309', '-1e309', '1e-400', '5e-324', '0.1', '1.5', '-0.5', '.5', '5.', '1e3', '1E+2', '+1', ' 1', '1 ', '0001',
  '0x10', '0b1', '0o7', '1_000', '1,5', 'Infinity', '-Infinity', 'NaN', 'null', 'undefined', 'true', '１２', '٣', '9'.repeat(400),
];

export const BOOLEANS: Value[] = ['true', 'false', 'TRUE', 'False', '1', '0', 'yes', 'on', '', ' true', 'true ', 'null', 'tru', 'truee'];

export const MALFORMED: Value[] = [
  '', ' ', '\t', '\n', '\r\n', '\u0000', raw('%'), raw('%%'), raw('%zz'), raw('%2'), raw('%u0041'), raw('%00'), raw('%0d%0aX-Injected:%201'),
  raw('%C0%AF'), raw('%ED%A0%80'), raw('%FF%FE'), raw('%E2%82'), raw('+'), raw('a+b'), raw('&'), raw('=='), raw('a=b=c'), raw('%26f%3Dhtml'),
  ',', ',,', ',,,,', ';', ':', '-', '--', '..', '...', '/', '\\', '*', '?', '#', '{}', '[]', '{', '[', '"', "'", '`', '<', '>',
  'null', 'undefined', 'NaN', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
];

export const UNICODE: Value[] = [
  'é', 'Ünïcödé', '日本語', '𝔘𝔫𝔦', '🙂', '🏳️‍🌈', '\u202egnp.exe', '\ufeffjson', '\u200b', 'a\u0301'.repeat(200), 'İ', 'ß', 'ﬀ', 'Ⅻ', '١٢٣',
  '\uff10', 'ｊｓｏｎ', '\u0085', '\u2028', '\u00a0', '\u180e', 'ǅ', '\u0130\u0131', '\uFFFD', '\uD83D\uDE00',
];

export const INJECTION: Value[] = [
  // SQL (DuckDB, SQLite, PostgreSQL)
  "' OR '1'='1", "' OR 1=1--", '" OR ""="', "1; DROP TABLE orders;--", "'; DROP TABLE jobs; --", "1 UNION SELECT NULL--",
  "') UNION SELECT * FROM read_csv('/etc/passwd')--", "read_parquet('/etc/passwd')", "'||(SELECT version())||'", '$1', '?', ':name', '@p',
  "x' AND sleep(5)--", "1' AND pg_sleep(5)--", "COPY (SELECT 1) TO '/tmp/x'", "ATTACH '/tmp/x.db' AS x", "INSTALL httpfs; LOAD httpfs",
  "\\'; --", "\u02bc OR 1=1--",
  // path traversal and file names
  '../../../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', raw('..%2F..%2F..%2Fetc%2Fpasswd'), raw('%2e%2e%2f%2e%2e%2fetc%2fpasswd'), raw('..%252f..%252fetc'),
  '/etc/passwd', 'C:\\Windows\\win.ini', '\\\\host\\share', 'file:///etc/passwd', '....//....//etc/passwd', 'demo-stations/../demo-stations',
  '.', '.hidden', '_private', 'demo-stations\u0000.parquet', 'data/demo/lake', '~', '$HOME', '${7*7}', '{{7*7}}', '<%= 7*7 %>', '#{7*7}',
  // markup and links
  '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)', '</title><h1>x', '&lt;&amp;',
  // prototype pollution, JSON
  '__proto__[polluted]=1', 'constructor.prototype.polluted', '{"__proto__":{"polluted":1}}', '[[[[[[[[[[]]]]]]]]]]',
  // CQL2 text and JSON
  'a=1 AND', 'AND', 'NOT', '((', '))', deepParens(50), deepParens(1000), deepNot(1000), 'a LIKE \'' + '%'.repeat(1000) + "'",
  "S_INTERSECTS(geometry, POLYGON((0 0, 1 1, 0 0)))", 'S_INTERSECTS(geometry, POINT(1e400 0))', "S_WITHIN(geometry, BBOX(0,0,1))",
  "T_AFTER(datetime, TIMESTAMP('2024-13-45T99:99:99Z'))", "T_INTERSECTS(datetime, INTERVAL('..','..'))", "CASEI(station_id) LIKE ACCENTI('%')",
  "A_CONTAINS(x, ('a'))", 'geometry IS NULL', '"station_id" = \'x\' OR 1=1', 'temperature BETWEEN 1 AND', 'temperature IN ()', 'temperature > 1e309',
  "temperature = 'x' || (SELECT 1)", 'DIV(1, 0) = 1', '1 / 0 = 1', '"; DROP TABLE x; --" = 1', 'foo(bar(baz(qux())))',
  '{"op":"=","args":[{"property":"a"},1]}', '{"op":"and","args":[]}', '{"op":"=","args":[{"property":"__proto__"},1]}', '{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[]}]}',
  deepJson(1000), '{', '[]', 'null', '1',
];

export const HUGE: Value[] = [
  'a'.repeat(2000), 'a'.repeat(9000), 'x'.repeat(20000), '1,'.repeat(3000) + '1', ','.repeat(5000), '-'.repeat(3000), '('.repeat(5000), '%'.repeat(0) + 'é'.repeat(3000),
];

/** Host header values: valid ones, and the broken ones that once crashed the service, and friends. */
export const HOSTS_VALID: string[] = ['127.0.0.1', 'localhost', 'localhost:8080', 'example.com', 'EXAMPLE.COM:443', '[::1]', '[::1]:8080', 'a.b-c_d.example', 'xn--bcher-kva.example'];
export const HOSTS_INVALID: string[] = [
  'localhost:abc', 'a b', '[', ']', '%', '@', '|', 'localhost:99999', 'a:65536', 'localhost:-1', 'localhost:', ':80', 'x/admin/status?', 'x/admin/status#',
  'evil.com/..', 'user@evil.com', 'host:80:80', '[::1', '::1', '[zz::1]', 'a\\b', 'a"b', 'a<b>', 'a{b}', 'a^b', 'a`b', 'localhost:8080/collections',
  '127.0.0.1:80 127.0.0.1:81', 'é.example', '日本.jp', 'x'.repeat(300), `${'a.'.repeat(200)}com`, 'localhost:08080x', 'localhost:+80', 'localhost:0x50',
];

export const ACCEPTS: string[] = [
  '*/*', 'application/json', 'text/html', 'application/geo+json', 'application/vnd.apache.parquet', 'application/xml', 'image/png', 'text/*', 'application/*',
  'application/json;q=0', '*/*;q=0', 'text/html;q=abc', 'text/html;q=-1', 'text/html;q=1e999', ';;;', ',,,', '*', '/', 'application/', '/json', 'a/b/c',
  'application/json; charset=utf-16', 'application/vnd.ogc.dggs+json;version=1.0', 'application/vnd.oai.openapi+json;version=3.1', `${'text/html;q=0.5,'.repeat(500)}*/*`,
  'ｊｓｏｎ/ｈｔｍｌ', 'application/json\u00a0', '',
];

export const CONTENT_TYPES: string[] = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/JSON',
  'text/plain', 'text/html', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=----x', 'multipart/form-data', 'application/octet-stream',
  'application/xml', 'application/merge-patch+json', 'application/geo+json', 'application/json; boundary=', ';', '', '*/*', 'application/json,text/plain',
];

export const CONTENT_ENCODINGS: string[] = ['identity', 'gzip', 'x-gzip', 'deflate', 'br', 'compress', 'zstd', 'gzip, gzip', 'gzip, deflate', 'GZIP', 'foo', '', ' gzip'];

export const AUTHORIZATIONS = (token: string): string[] => [
  `Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`, `Bearer ${token} `, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, 'Bearer', 'Bearer ',
  '', 'Basic dXNlcjpwYXNz', `Basic ${Buffer.from(`x:${token}`).toString('base64')}`, 'Digest username="x"', `Token ${token}`, `Bearer ${token}, Bearer ${token}`,
  `Bearer ${'A'.repeat(8000)}`, 'Bearer é', 'Bearer \u0000', "Bearer ' OR '1'='1", 'Bearer null', 'Bearer undefined', `Bearer ${token}\u00a0`, 'Negotiate YII=',
];

export const METHODS: string[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'LINK', 'SEARCH', 'get', 'FOO', 'G ET'];

/**
 * Forwarded headers, read because the fuzzed service trusts its loopback peer as a proxy: well-formed
 * ones (which may move links and the logged client, nothing else) and malformed ones (400).
 */
export const FORWARDED_VALID: [string, string][] = [
  ['Forwarded', 'for=192.0.2.60;proto=https;host=public.example'], ['Forwarded', 'for="[2001:db8::17]:4711";proto=http'], ['Forwarded', 'for=unknown, for=127.0.0.1'],
  ['Forwarded', 'for=_hidden;by=_proxy'], ['Forwarded', 'proto=https'], ['Forwarded', `for=8.8.8.8, ${'for=127.0.0.1, '.repeat(500)}for=127.0.0.1`], ['Forwarded', 'FOR=1.2.3.4;PROTO=HTTPS;HOST="a.example:8443"'],
  ['X-Forwarded-For', '8.8.8.8, 127.0.0.1'], ['X-Forwarded-For', `1.1.1.1, ${'127.0.0.1, '.repeat(1000)}127.0.0.1`], ['X-Forwarded-Proto', ''], ['X-Forwarded-For', '2001:db8::1'], ['X-Forwarded-For', 'garbage, 9.9.9.9'],
  ['X-Forwarded-Proto', 'https'], ['X-Forwarded-Proto', 'https, http'], ['X-Forwarded-Host', 'public.example:8443'], ['X-Forwarded-Port', '443'],
  ['X-Forwarded-Prefix', '/sub/api'], ['X-Forwarded-Prefix', '/'], ['X-Forwarded-Prefix', '/a%20b/'], ['X-Forwarded-Host', '[::1]'],
];
export const FORWARDED_MALFORMED: [string, string][] = [
  ['Forwarded', 'for='], ['Forwarded', 'for=1.2.3.4;'], ['Forwarded', 'for="1.2.3.4'], ['Forwarded', 'for=2001:db8::1'], ['Forwarded', 'for=999.1.1.1'], ['Forwarded', 'for="[zz::1]"'],
  ['Forwarded', 'for=1.2.3.4;proto=gopher'], ['Forwarded', 'for=1.2.3.4;host="a/b"'], ['Forwarded', 'host="x/admin/status?"'], ['Forwarded', ';;,,'], ['Forwarded', 'for=a b'],
  ['Forwarded', `for="${'\\'.repeat(3000)}"`], ['Forwarded', 'for=é'],
  ['X-Forwarded-For', 'garbage'], ['X-Forwarded-For', '1.2.3.4:5678'], ['X-Forwarded-For', '8.8.8.8, not-an-ip'], ['X-Forwarded-Proto', 'gopher'], ['X-Forwarded-Proto', 'https,'],
  ['X-Forwarded-Host', 'x/admin/status?'], ['X-Forwarded-Host', 'a:99999'], ['X-Forwarded-Host', 'user@evil.com'], ['X-Forwarded-Port', '0'], ['X-Forwarded-Port', '80x'],
  ['X-Forwarded-Port', '65536'], ['X-Forwarded-Prefix', 'sub'], ['X-Forwarded-Prefix', '/a/../admin'], ['X-Forwarded-Prefix', '/a//b'], ['X-Forwarded-Prefix', '/a?b'],
  ['X-Forwarded-Prefix', '/a#b'], ['X-Forwarded-Prefix', '/%zz'], ['X-Forwarded-Prefix', `/${'a'.repeat(300)}`], ['X-Forwarded-Prefix', '/a\\b'], ['X-Forwarded-Prefix', '/<script>'],
];

/** Other request headers with a history of tripping servers. */
export const OTHER_HEADERS: [string, string][] = [
  ['X-Forwarded-For', '127.0.0.1'], ['X-Forwarded-Host', 'evil.com'], ['X-Forwarded-Proto', 'gopher'], ['Forwarded', 'for=127.0.0.1;host=evil.com;proto=https'],
  ['X-Real-IP', '::1'], ['X-HTTP-Method-Override', 'DELETE'], ['X-Original-URL', '/admin/status'], ['X-Rewrite-URL', '/admin/status'],
  ['Range', 'bytes=0-0'], ['Range', 'bytes=-1,0-,5-3'], ['Range', `bytes=${'0-1,'.repeat(1000)}0-1`], ['If-None-Match', '*'], ['If-Modified-Since', 'garbage'],
  ['Expect', '100-continue'], ['Expect', 'foo'], ['Upgrade', 'websocket'], ['Upgrade', 'h2c'], ['Connection', 'Upgrade, HTTP2-Settings'], ['TE', 'trailers'],
  ['Cookie', `a=${'b'.repeat(4000)}`], ['Origin', 'null'], ['Referer', 'javascript:alert(1)'], ['Accept-Language', '*;q=2'], ['Accept-Encoding', 'gzip;q=2, br, zstd, *'],
  ['Accept-Charset', 'utf-7'], ['Content-Length', '0'], ['X-Very-Long', 'v'.repeat(12000)], ['X-Unicode', 'ünï'], ['Max-Forwards', '-1'], ['Via', '1.1 evil'],
];
