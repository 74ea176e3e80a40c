/**
 * The set-up of the tests that drive a whole devnet with its Ark server (gRPC, the control API
 * over HTTP, the fault proxy): one fresh devnet per test and the gRPC clients it opened, closed
 * after it; and the control API's answers.
 */
import { expect } from "chai";
import type { ArkServerClient } from "@tender/ark-grpc";
import { startDevnetWithArk, type DevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";
import { grpcClient } from "./grpc-api.js";

/** A devnet (test profile) and the clients a test opened on it. */
export class DevnetUnderTest {
  private readonly clients: ArkServerClient[] = [];

  private constructor(readonly devnet: DevnetWithArk) {}

  static async start(seed: string): Promise<DevnetUnderTest> {
    return new DevnetUnderTest(await startDevnetWithArk({ seed, ark: { profile: "test" } }));
  }

  /** A gRPC client for `url`, closed by {@link stop}. */
  client(url: string): ArkServerClient {
    const c = grpcClient(url);
    this.clients.push(c);
    return c;
  }

  /** Closes the clients and stops the devnet. */
  async stop(): Promise<void> {
    for (const c of this.clients) c.close();
    await this.devnet.stop();
  }
}

/** One answer of the control API: status and body (JSON when it parses, the text otherwise). */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

/** Calls the control API at `url`, with `body` as JSON (a string is sent as it is). */
export async function controlCall(url: string, method: string, body?: unknown): Promise<ControlAnswer> {
  const res = await fetch(url, {
    method,
    ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Asserts a 200 answer; returns its body. */
export function okBody<T>(a: ControlAnswer): T {
  expect(a.status, JSON.stringify(a.body)).to.equal(200);
  return a.body as T;
}
