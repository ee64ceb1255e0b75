import http from 'node:http';

/** GET with a Host header of our choosing (fetch does not let a caller set it); resolves with the body. */
export function getWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { ...headers, Host: host } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text));
    }).on('error', reject);
  });
}
