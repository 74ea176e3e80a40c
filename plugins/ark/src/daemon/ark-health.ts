import type { Metrics, Readiness, WalletService, WalletSession } from "@tender/core";
import { secp256k1Implementation } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { VtxoStore } from "./vtxos/vtxo-store.js";

/** States of the VTXOs the wallet holds (spent ones are history, not holdings). */
const HELD_STATES = ["spendable", "locked", "exited"] as const;

/**
 * The Ark rail's readiness check (`ark_server`: connected, with the protocol version spoken) and
 * gauges (connection state, protocol version, VTXO counts and amounts by state, and which build
 * of libsecp256k1 signs: `native` where the addon loaded, `wasm` where it could not, e.g. a platform
 * without a prebuilt addon).
 */
export function registerArkHealth(readiness: Readiness, metrics: Metrics, session: WalletSession, connection: WalletService<ArkServer>, vtxos: VtxoStore): void {
  readiness.add("ark_server", async () => {
    if (!session.isLoaded) return { ok: true, detail: "no wallet loaded" };
    const server = connection.current;
    if (!server) return { ok: false, detail: "no connection (wallet locked or not attached)" };
    if (!(await server.heartbeat())) return { ok: false, detail: "not connected" };
    const version = server.session?.protocolVersion;
    return { ok: true, detail: version !== undefined ? `connected, protocol version ${version}` : "connected" };
  });
  metrics.gauge({
    name: "tender_ark_server_connected", help: "1 when the wallet's Ark server connection is up",
    collect: () => (session.isLoaded ? [{ value: connection.current?.connected ? 1 : 0 }] : []),
  });
  metrics.gauge({
    name: "tender_ark_protocol_version", help: "The Ark protocol version spoken with the server",
    collect: () => {
      const v = connection.current?.session?.protocolVersion;
      return v === undefined ? [] : [{ value: v }];
    },
  });
  metrics.gauge({
    name: "tender_secp256k1_info", help: "1, labelled with the libsecp256k1 build the protocol's crypto runs on (native or wasm)", labelNames: ["implementation"],
    collect: () => [{ labels: { implementation: secp256k1Implementation() }, value: 1 }],
  });
  const held = async () => {
    if (!session.isLoaded) return [];
    const list = await vtxos.list(HELD_STATES);
    return HELD_STATES.map((state) => {
      const of = list.filter((v) => v.state === state);
      return { state, count: of.length, sat: of.reduce((a, v) => a + Number(v.amountSat), 0) };
    });
  };
  metrics.gauge({
    name: "tender_vtxos", help: "VTXOs the wallet holds, by state", labelNames: ["state"],
    collect: async () => (await held()).map((h) => ({ labels: { state: h.state }, value: h.count })),
  });
  metrics.gauge({
    name: "tender_vtxo_amount_sat", help: "Sum of the VTXOs the wallet holds, in sats, by state", labelNames: ["state"],
    collect: async () => (await held()).map((h) => ({ labels: { state: h.state }, value: h.sat })),
  });
}
