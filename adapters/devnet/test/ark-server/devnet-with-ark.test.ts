import { expect } from "chai";
import { toHex } from "@tender/ark-protocol";
import { arkReadyFields, startDevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";
import { grpcClient } from "./grpc-api.js";

describe("ark server: the devnet with its Ark server", function () {
  this.timeout(30_000);

  it("starts the chain faces and the Ark server on the same node, and stops both", async () => {
    const devnet = await startDevnetWithArk({ seed: "devnet-with-ark", ark: { profile: "test" } });
    const client = grpcClient(devnet.arkUrl);
    try {
      const session = await client.connect();
      const fields = arkReadyFields(devnet);
      // the server wallet was funded from the faucet and confirmed
      expect((await devnet.ark.server.walletStatus()).trustedBalance).to.equal(100_000_000n);
      expect(fields.ark).to.equal(devnet.arkUrl);
      expect(fields.ark_server_pubkey).to.equal(toHex(session.arkInfo.serverPubkey));
      // the Ark server sees the devnet's chain: a block mined on the node is the server's tip
      const before = devnet.node.tipHeight();
      devnet.node.mine(1);
      expect(await devnet.ark.server.ctx.chain.tipHeight()).to.equal(before + 1);
      const res = await fetch(`${devnet.esploraUrl}/blocks/tip/height`);
      expect(Number(await res.text())).to.equal(before + 1);
    } finally {
      client.close();
      await devnet.stop();
    }
    const after = grpcClient(devnet.arkUrl);
    try {
      const err = await after.connect().then(
        () => null,
        (e: Error) => e,
      );
      expect(err, "the Ark server must be down after stop()").to.not.equal(null);
    } finally {
      after.close();
    }
  });
});
