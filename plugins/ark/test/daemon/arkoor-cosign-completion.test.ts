import { expect } from "chai";
import {
  ArkoorError, arkoorServerCosign, buildArkoorPackage, encodeVtxo, toHex, validateVtxo, type Vtxo,
} from "@tender/ark-protocol";
import type { ArkoorCosignPart } from "@tender/ark-protocol/server";
import { cosignArkoor, rebuildArkoorVtxos, type ArkoorOutput } from "../../src/daemon/arkoor/arkoor-cosign-completion.js";
import { SERVER, randomKey, signedBoard } from "./fixtures.js";

describe("arkoor cosign: what a payment persists rebuilds its signed VTXOs", () => {
  const user = randomKey();
  const { vtxo: input, funding } = signedBoard(user, 100_000n, 1_000);
  const outputs: ArkoorOutput[] = [
    { amount: 30_000n, policy: { type: "pubkey", userPubkey: randomKey().pk } },
    { amount: 35_000n, policy: { type: "pubkey", userPubkey: user.pk } },
    { amount: 35_000n, policy: { type: "pubkey", userPubkey: user.pk } },
  ];
  /** The server's side, in this process: it builds the same package and answers every part. */
  const server = async (parts: ArkoorCosignPart[]) =>
    arkoorServerCosign(buildArkoorPackage([input], outputs), SERVER.sk, parts.map((p) => [...p.userPubNonces]))
      .map((part) => ({ serverPubNonces: part.map((r) => r.pubNonce), serverPartialSigs: part.map((r) => r.partialSig) }));
  const cosign = () => cosignArkoor(() => user.sk, [input], outputs, { maxExitDepth: 50 }, server);
  const encoded = (vs: readonly Vtxo[]) => vs.map((v) => toHex(encodeVtxo(v)));

  it("rebuilds every signed output VTXO byte for byte from the inputs, the outputs and the final signatures", async () => {
    const cosigned = await cosign();
    expect(cosigned.vtxos).to.have.length(3);
    const rebuilt = rebuildArkoorVtxos([input], outputs, cosigned.signatures);
    expect(encoded(rebuilt)).to.deep.equal(encoded(cosigned.vtxos));
    // they are the signed VTXOs, every signature of their chains included
    for (const v of rebuilt) expect(validateVtxo(v, funding)).to.have.length(3);
  });

  it("rebuilds a package the limits of the time allowed, though today's would refuse it (its checks are not run again)", async () => {
    const cosigned = await cosign();
    // an exit depth limit of 1 refuses the board (depth 1) as an input now
    expect(() => buildArkoorPackage([input], outputs, { maxExitDepth: 1 })).to.throw(ArkoorError, /exit depth/);
    expect(encoded(rebuildArkoorVtxos([input], outputs, cosigned.signatures))).to.deep.equal(encoded(cosigned.vtxos));
  });
});
