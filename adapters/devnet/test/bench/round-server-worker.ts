/**
 * The server side of the round benchmark, in its own thread (so its timings do not wait behind
 * the clients' work in one event loop): a devnet node and the reference Ark server (test
 * profile, `nb_round_nonces` and the windows from the main thread), a funded server wallet, one
 * confirmed and registered board VTXO per client, then one triggered round, timed.
 *
 * | Message (main → worker) | Answer |
 * |---|---|
 * | (start, `workerData`: {@link ServerWorkerSetup}) | {@link ServerReady} |
 * | `trigger` | {@link ServerRoundTimes} once `finished` is published |
 * | `stop` | `stopped` after the server stopped |
 *
 * Any failure answers `{ type: "error", message }`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { encodeVtxo, toHex } from "@tender/ark-protocol";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { startArkServer, type RunningArkServer } from "../../src/ark-server/start-ark-server.js";
import { grpcApi, grpcClient } from "../ark-server/grpc-api.js";
import { WalletKit } from "../ark-server/wallet-kit.js";
import { nowMs, recordRoundEvents, timeTreeSigning, type RoundEventTimes, type TreeSigningTimes } from "./round-timing.js";

/** What the worker sets up. */
export interface ServerWorkerSetup {
  clients: number;
  boardSat: string;
  nbRoundNonces: number;
  roundSubmitTimeMs: number;
  roundSignTimeMs: number;
}

/** A board VTXO for one client: encoded VTXO and its owner's secret key (hex). */
export interface ClientBoard {
  vtxo: string;
  secretKey: string;
}

/** The server is up and the boards are registered. */
export interface ServerReady {
  type: "ready";
  url: string;
  tipHeight: number;
  boards: ClientBoard[];
}

/** Server-side times of the triggered round (absolute ms, see `nowMs`). */
export interface ServerRoundTimes extends RoundEventTimes, TreeSigningTimes {
  type: "timings";
  triggered: number;
}

const port = parentPort!;
const setup = workerData as ServerWorkerSetup;

async function main(): Promise<void> {
  const node = new DevnetNode({ seed: `round-bench-${setup.clients}` });
  const ark: RunningArkServer = await startArkServer({
    node,
    profile: "test",
    overrides: { nbRoundNonces: setup.nbRoundNonces, roundSubmitTimeMs: setup.roundSubmitTimeMs, roundSignTimeMs: setup.roundSignTimeMs },
  });
  const client = grpcClient(ark.url);
  try {
    const boardSat = BigInt(setup.boardSat);
    await ark.server.wallet.fundFromFaucet(BigInt(setup.clients) * boardSat + 1_000_000n);
    node.mine(1);
    const api = grpcApi(client);
    const kit = new WalletKit(api, node);
    const prepared = await Promise.all(Array.from({ length: setup.clients }, () => kit.prepareBoard(boardSat)));
    const vtxos = await Promise.all(prepared.map((p) => kit.cosignBoard(p)));
    node.mine((await api.arkInfo()).requiredBoardConfirmations);
    await Promise.all(vtxos.map((v) => api.registerBoardVtxo(encodeVtxo(v))));
    const boards = vtxos.map((v) => ({ vtxo: toHex(encodeVtxo(v)), secretKey: toHex(kit.secretFor(v.policy.userPubkey)) }));
    port.postMessage({ type: "ready", url: ark.url, tipHeight: node.tipHeight(), boards } satisfies ServerReady);

    await nextMessage("trigger");
    const events = recordRoundEvents(ark.server.rounds.events);
    const signing = timeTreeSigning();
    try {
      const triggered = nowMs();
      ark.server.triggerRound();
      const times = await events.finished;
      port.postMessage({ type: "timings", triggered, ...times, ...signing.times } satisfies ServerRoundTimes);
    } finally {
      signing.restore();
      events.stop();
    }
    await nextMessage("stop");
  } finally {
    client.close();
    await ark.stop();
  }
  port.postMessage({ type: "stopped" });
}

function nextMessage(type: string): Promise<void> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }) => {
      if (m.type !== type) return;
      port.off("message", on);
      resolve();
    };
    port.on("message", on);
  });
}

main().catch((e: unknown) => port.postMessage({ type: "error", message: e instanceof Error ? (e.stack ?? e.message) : String(e) }));
