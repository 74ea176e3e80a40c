/**
 * Reference Ark server throughput: arkoor cosign requests per second it sustains from concurrent
 * gRPC clients (each request spends a distinct VTXO: full checks, spend record in SQLite, two
 * MuSig2 partial signatures), against the raw MuSig2 partial-sign rate of the same process, as
 * a ratio (the server signs only after the spend is recorded; issue 5 "done when").
 */
import { busyMs, categorize, measure, profileHere, type BenchReport, type BenchRow } from "@tender/core";
import { encodeVtxo, musigNonceGen, musigRespondCosignDeterministic, pubkeyFromSecret, type Vtxo } from "@tender/ark-protocol";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { startArkServer } from "../../src/ark-server/start-ark-server.js";
import { grpcApi, grpcClient } from "../ark-server/grpc-api.js";
import { newKey, pubkeyPolicy, WalletKit, type ArkoorPartReq } from "../ark-server/wallet-kit.js";

const CLIENTS = 8;
const VTXOS = 48;

export default async function arkServerBench(): Promise<BenchReport> {
  const node = new DevnetNode({ seed: "ark-server-bench" });
  const ark = await startArkServer({ node, profile: "test" });
  const clients = Array.from({ length: CLIENTS }, () => grpcClient(ark.url));
  try {
    const wallet = new WalletKit(grpcApi(clients[0]!), node);
    // VTXOs to spend: boards cosigned in parallel, confirmed together, registered
    const prepared = await Promise.all(Array.from({ length: VTXOS }, () => wallet.prepareBoard(30_000n)));
    const boards: Vtxo[] = [];
    for (const p of prepared) boards.push(await wallet.cosignBoard(p));
    node.mine(1);
    await Promise.all(boards.map((b) => grpcApi(clients[0]!).registerBoardVtxo(encodeVtxo(b))));
    const requests: ArkoorPartReq[][] = boards.map((b) => wallet.prepareArkoor([b], [{ amount: b.amount, policy: pubkeyPolicy(newKey().pk) }]).parts);

    // arkoor: CLIENTS concurrent clients, each sending its share of the requests one after another
    // (the clients run in this process too; the profile of the burst shows what is the server's)
    let next = 0;
    const start = process.hrtime.bigint();
    const { profile } = await profileHere(() => Promise.all(
      clients.map(async (c) => {
        for (let i = next++; i < requests.length; i = next++) await c.ark("requestArkoorCosign", { parts: requests[i]! });
      }),
    ));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const arkoorPerSec = requests.length / seconds;
    const cats = categorize(profile);
    // TENDER_BENCH_KEEP_PROFILES=1 keeps the profile of the burst
    if (process.env.TENDER_BENCH_KEEP_PROFILES) {
      const file = join(tmpdir(), `ark-server-bench-${process.pid}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      console.error(`CPU profile kept in ${file}`);
    }

    // raw MuSig2: one deterministic partial signature (what the server does per sighash)
    const sk = new Uint8Array(randomBytes(32));
    const user = newKey();
    const message = new Uint8Array(randomBytes(32));
    const userNonce = musigNonceGen({ pubkey: user.pk, secretKey: user.sk, message }).pubNonce;
    const pk = pubkeyFromSecret(sk);
    const signPerSec = await measure(() => musigRespondCosignDeterministic({ secretKey: sk, pubkey: pk, otherPubkey: user.pk, otherPubNonce: userNonce, message }), 1000);

    const signsPerRequest = requests[0]!.reduce((s, p) => s + p.userPubNonces.length, 0);
    const ratio = arkoorPerSec / signPerSec;
    // goal: partial signatures served per second ≥ 0.8 of the raw partial-sign rate
    const served = ratio * signsPerRequest;
    const perRequest = (k: string) => (cats.get(k) ?? 0) / requests.length;
    const signingMs = perRequest("crypto: MuSig2 sign/verify/nonces") + perRequest("crypto: MuSig2 key aggregation");
    const busy = busyMs(cats) / requests.length;
    const top = [...cats].filter(([k]) => k !== "idle" && !k.startsWith("crypto: MuSig2")).sort((a, b) => b[1] - a[1]).slice(0, 4)
      .map(([k, v]) => `${k} ${((v / requests.length / busy) * 100).toFixed(0)}%`).join(", ");
    const rows: BenchRow[] = [
      {
        name: "GOAL partial signatures served / raw partial signs ≥ 0.8",
        opsPerSec: served >= 0.8 ? 1 : 0,
        note: `${served >= 0.8 ? "met" : "NOT MET"}: ${served.toFixed(2)} (goal ≥ 0.8); per request ${busy.toFixed(2)} ms of CPU in this process ` +
          `(server and its ${CLIENTS} gRPC clients), MuSig2 ${((signingMs / busy) * 100).toFixed(0)}%; the rest: ${top}`,
      },
      ...[...cats].filter(([k]) => k !== "idle").sort((a, b) => b[1] - a[1]).map(([k, v]) => ({ name: `  ms/request: ${k}`, opsPerSec: v / requests.length })),
      {
        name: `arkoor cosign requests, ${CLIENTS} concurrent gRPC clients`,
        opsPerSec: arkoorPerSec,
        note: `${requests.length} requests, ${signsPerRequest} partial signatures each; ratio to raw partial signs ${ratio.toFixed(3)} (ideal ${(1 / signsPerRequest).toFixed(3)})`,
      },
      { name: "raw MuSig2 partial sign (deterministic, libsecp256k1 backend)", opsPerSec: signPerSec },
      { name: "ratio arkoor requests / raw partial signs (x1000)", opsPerSec: ratio * 1000, note: "how close the server comes to its signing bound" },
    ];
    return { title: "Reference Ark server (adapters/devnet)", rows };
  } finally {
    for (const c of clients) c.close();
    await ark.stop();
  }
}
