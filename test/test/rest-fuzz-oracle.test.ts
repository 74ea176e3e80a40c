/**
 * The REST fuzzer's own checks, without a daemon: its model of barkd's framework gives the
 * verdicts barkd gives, its oracle flags answers barkd never gives, and its state comparison
 * sees a change. (A fuzzer whose oracle accepts everything would pass every run.)
 */
import { expect } from "chai";
import { BARKD_OPENAPI } from "../src/barkd-schemas.js";
import { barkdVerdict, type WireRequest } from "../src/fuzz/barkd-model.js";
import { judge, type RawResponse } from "../src/fuzz/oracle.js";
import { operationsOf } from "../src/fuzz/operations.js";
import { handlerExpectation } from "../src/fuzz/situations.js";
import { WalletStateReader, type WalletState } from "../src/fuzz/wallet-state.js";

const TOKEN = `A${"b".repeat(43)}`;
const { operations, servedDoc } = operationsOf(BARKD_OPENAPI as unknown as Record<string, unknown>);
const auth: [string, string] = ["authorization", `Bearer ${TOKEN}`];
const json: [string, string] = ["content-type", "application/json"];
const wire = (method: string, path: string, body?: string, headers: [string, string][] = [auth, json], query?: string): WireRequest =>
  ({ method, path, query, headers, body: body === undefined ? undefined : Buffer.from(body) });
const verdict = (r: WireRequest) => barkdVerdict(operations, r, TOKEN, servedDoc).verdict;
const res = (status: number, body: string, contentType = "application/json"): RawResponse =>
  ({ status, headers: contentType ? { "content-type": contentType } : {}, body: Buffer.from(body) });

describe("REST fuzzer: the model of barkd's framework and the oracle", () => {
  it("gives barkd's framework verdicts: route, token, path, query, content type, JSON syntax, JSON shape", () => {
    const cases: [WireRequest, string][] = [
      [wire("GET", "/api/v1/wallet/balance/"), "rejected 404"],
      [wire("GET", "/API/V1/WALLET/BALANCE"), "rejected 404"],
      [wire("PUT", "/api/v1/wallet/balance"), "rejected 405"],
      [wire("GET", "/api/v1/wallet/balance", undefined, []), "rejected 401"],
      [wire("GET", "/api/v1/wallet/balance", undefined, [["authorization", `bearer ${TOKEN}`]]), "rejected 401"],
      [wire("GET", "/api/v1/wallet/balance", undefined, [["authorization", `Bearer  ${TOKEN} `]]), "handler"],
      [wire("GET", "/api/v1/wallet/addresses/index/+7"), "handler"],
      [wire("GET", "/api/v1/wallet/addresses/index/4294967296"), "rejected 400"],
      [wire("GET", "/api/v1/wallet/addresses/index/%C3%28"), "rejected 400"],
      [wire("GET", "/api/v1/wallet/vtxos", undefined, [auth], "all=yes"), "rejected 400"],
      [wire("GET", "/api/v1/wallet/vtxos", undefined, [auth], "all=true&all=false"), "rejected 400"],
      [wire("GET", "/api/v1/notifications/wait", undefined, [], "since=2026-02-30T00:00:00Z"), "rejected 400"],
      [wire("GET", "/api/v1/notifications/wait", undefined, [], "since=2026-02-28T00:00:00Z"), "rejected 401"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":1}', [auth, ["content-type", "text/plain"]]), "rejected 415"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":1'), "rejected 400"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":"1"}'), "rejected 422"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":1.0}'), "rejected 422"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":1,"amount_sat":2}'), "rejected 422"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":18446744073709551615}'), "handler"],
      [wire("POST", "/api/v1/boards/board-amount", '{"amount_sat":18446744073709551616}'), "rejected 422"],
      [wire("POST", "/api/v1/wallet/send", '{"destination":"\\ud800"}'), "rejected 400"],
      [wire("POST", "/api/v1/wallet/create", '{"network":"regtest","chain_source":{"esplora":{"url":"x"}}}'), "handler"],
      [wire("POST", "/api/v1/wallet/create", '{"network":"regtest","chain_source":{"electrum":{"url":"x"}}}'), "rejected 422"],
      [wire("POST", "/api/v1/history/7/metadata", '{"a":1,"a":2.5}', [auth, ["content-type", "application/merge-patch+json"]]), "handler"],
    ];
    for (const [r, want] of cases) {
      const v = verdict(r);
      expect(v.kind === "rejected" ? `rejected ${v.status}` : v.kind, `${r.method} ${r.path}?${r.query ?? ""} ${r.body?.toString() ?? ""}`).to.equal(want);
    }
  });

  it("flags answers barkd never gives", () => {
    const balance = operations.find((o) => o.method === "GET" && o.path === "/api/v1/wallet/vtxos/{id}")!;
    const send = operations.find((o) => o.method === "POST" && o.path === "/api/v1/wallet/send")!;
    const rules = (op: typeof balance, v: ReturnType<typeof verdict>, r: RawResponse, path = op.path) =>
      judge(op, v, undefined, r, { method: op.method, path }).map((x) => x.rule);
    expect(rules(balance, { kind: "handler" }, res(500, '{"message":"boom"}'))).to.include("undocumented-status");
    expect(rules(send, { kind: "handler" }, res(502, ""))).to.include("5xx");
    expect(rules(send, { kind: "handler" }, res(422, "Failed to deserialize", "text/plain; charset=utf-8"))).to.include("framework-rejects-valid");
    expect(rules(send, { kind: "rejected", status: 415, body: "text", why: "t" }, res(415, '{"message":"x"}'))).to.include("415-not-text");
    expect(rules(send, { kind: "handler" }, res(400, '{"message":"x","code":1}'))).to.include("error-shape");
    expect(rules(balance, { kind: "handler" }, res(404, '{"message":"x"}'))).to.include("404-shape");
    expect(rules(send, { kind: "rejected", status: 405, body: "empty", why: "m" }, res(405, "x", ""))).to.include("405-body");
    expect(rules(send, { kind: "handler" }, res(200, '{"message":"ok"}'))).to.deep.equal([]);
    const expectation = handlerExpectation({ method: "POST", path: "/api/v1/wallet/send", params: {}, query: [], body: { destination: " tark1qqq " } },
      { fingerprint: "00000000", vtxoIds: new Set(), movementIds: new Set(), derivedIndex: 0 });
    expect(judge(send, { kind: "handler" }, expectation, res(200, '{"message":"Payment sent successfully"}'), { method: "POST", path: send.path }).map((x) => x.rule)).to.include("situation-status");
  });

  it("sees a change in any part of the wallet's state", () => {
    const state = (parts: Record<string, string>): WalletState => ({ parts, movementIds: new Set(), vtxoIds: new Set() });
    expect(WalletStateReader.diff(state({ a: "1", b: "2" }), state({ a: "1", b: "2" }))).to.deep.equal([]);
    expect(WalletStateReader.diff(state({ a: "1", b: "2" }), state({ a: "1", b: "3" }))).to.have.length(1);
  });
});
