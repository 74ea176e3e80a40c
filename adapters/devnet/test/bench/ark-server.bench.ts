/**
 * Reference Ark server throughput: arkoor cosign requests per second it sustains from concurrent
 * gRPC clients (each request spends a distinct VTXO: full checks, spend record in SQLite, two
 * MuSig2 partial signatures), against the raw MuSig2 partial-sign rate of the same process, as
 * a ratio (the server signs only after the spend is recorded; issue 5 "done when").
 */
import { measure, type BenchReport, type BenchRow } from "@tender/core";
import { encodeVtxo, musigNonceGen, musigRespondCosignDeterministic, pubkeyFromSecret, type Vtxo } from "@tender/ark-protocol";
import { randomBytes } from "node:crypto";
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
    let next = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      clients.map(async (c) => {
        for (let i = next++; i < requests.length; i = next++) await c.ark("requestArkoorCosign", { parts: requests[i]! });
      }),
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const arkoorPerSec = requests.length / seconds;

    // raw MuSig2: one deterministic partial signature (what the server does per sighash)
    const sk = new Uint8Array(randomBytes(32));
    const user = newKey();
    const message = new Uint8Array(randomBytes(32));
    const userNonce = musigNonceGen({ pubkey: user.pk, secretKey: user.sk, message }).pubNonce;
    const pk = pubkeyFromSecret(sk);
    const signPerSec = await measure(() => musigRespondCosignDeterministic({ secretKey: sk, pubkey: pk, otherPubkey: user.pk, otherPubNonce: userNonce, message }), 1000);

    const signsPerRequest = requests[0]!.reduce((s, p) => s + p.userPubNonces.length, 0);
    const ratio = arkoorPerSec / signPerSec;
    const rows: BenchRow[] = [
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
