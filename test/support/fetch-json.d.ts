// Tests read JSON bodies and assert on their shape; typing each one as unknown would only add casts.
export {};
declare global {
  interface Response {
    json(): Promise<any>;
  }
}
