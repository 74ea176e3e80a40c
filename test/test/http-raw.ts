import { request } from "node:http";

/** A GET with exact control over header lines (repeated or non-UTF-8 values), which fetch cannot send. */
export function rawGet(base: string, path: string, headers: [string, string | string[]][]): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    for (const [k, v] of headers) req.setHeader(k, v);
    req.on("error", reject);
    req.end();
  });
}
