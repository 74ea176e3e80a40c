import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captaindDefaultFeeSchedule } from "@tender/ark-protocol";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { ArkServer } from "../../src/ark-server/ark-server.js";
import { serverConfig, ServerConfigError } from "../../src/ark-server/server-config.js";

describe("ark server: configuration, Ark info, handshake, keys (captaind's defaults and version negotiation)", function () {
  this.timeout(30_000);
  const node = new DevnetNode({ seed: "ark-config-test" });

  it("announces captaind's template values with the default profile", async () => {
    const server = await ArkServer.open({ chain: node, profile: "default" });
    try {
      const info = await server.arkInfo();
      expect({
        roundIntervalSecs: info.roundIntervalSecs,
        nbRoundNonces: info.nbRoundNonces,
        vtxoExitDelta: info.vtxoExitDelta,
        vtxoLifetime: info.vtxoLifetime,
        vtxoExpiryDelta: info.vtxoExpiryDelta,
        htlcSendExpiryDelta: info.htlcSendExpiryDelta,
        htlcExpiryDelta: info.htlcExpiryDelta,
        maxUserInvoiceCltvDelta: info.maxUserInvoiceCltvDelta,
        requiredBoardConfirmations: info.requiredBoardConfirmations,
        minBoardAmount: info.minBoardAmount,
        maxVtxoExitDepth: info.maxVtxoExitDepth,
        maxOffboardInputs: info.maxOffboardInputs,
        lnReceiveAntiDosRequired: info.lnReceiveAntiDosRequired,
      }).to.deep.equal({
        roundIntervalSecs: 10,
        nbRoundNonces: 8,
        vtxoExitDelta: 144,
        vtxoLifetime: 4320,
        vtxoExpiryDelta: 4320,
        htlcSendExpiryDelta: 258,
        htlcExpiryDelta: 40,
        maxUserInvoiceCltvDelta: 250,
        requiredBoardConfirmations: 3,
        minBoardAmount: 20_000n,
        maxVtxoExitDepth: 100,
        maxOffboardInputs: 100,
        lnReceiveAntiDosRequired: false,
      });
      expect(info.fees).to.deep.equal(captaindDefaultFeeSchedule());
      expect(info.network).to.equal("regtest");
      expect(info.maxVtxoAmount).to.equal(undefined);
      // the devnet node's 3-block estimate (10 sat/vB by default) in sat/kvB
      expect(info.offboardFeerateSatVkb).to.equal(BigInt(node.estimateFeeRate(3) * 1000));
    } finally {
      await server.close();
    }
  });

  it("has a test profile with short delays, fast confirmations and zero fees", () => {
    const c = serverConfig("test");
    expect([c.vtxoLifetime, c.vtxoExitDelta, c.maxVtxoExitDepth, c.requiredBoardConfirmations, c.htlcExpiryDelta]).to.deep.equal([432, 12, 50, 1, 6]);
    expect(c.fees.board).to.deep.equal({ minFeeSat: 0n, baseFeeSat: 0n, ppm: 0n });
    expect(c.fees.offboard.fixedAdditionalVb).to.equal(100n);
  });

  it("refuses unknown profiles, out-of-range deltas and invalid fee tables", () => {
    expect(() => serverConfig("prod" as never)).to.throw(ServerConfigError, "unknown Ark server profile: prod");
    expect(() => serverConfig("test", { vtxoExitDelta: 16_384 })).to.throw(ServerConfigError, "vtxoExitDelta must be a block delta in 1..16383, got 16384");
    const fees = captaindDefaultFeeSchedule();
    fees.refresh.ppmExpiryTable = [
      { expiryBlocksThreshold: 10, ppm: 100n },
      { expiryBlocksThreshold: 5, ppm: 200n },
    ];
    expect(() => serverConfig("default", { fees })).to.throw(ServerConfigError, /^invalid fee schedule/);
  });

  it("answers the handshake with its version range and PSAs", async () => {
    const server = await ArkServer.open({ chain: node, profile: "test", overrides: { handshakePsa: "maintenance at noon" } });
    try {
      expect(server.handshake("0.6.0")).to.deep.equal({ minProtocolVersion: 4, maxProtocolVersion: 5, psa: "maintenance at noon" });
      expect(server.handshake("bark 0.6.0-beta")).to.deep.equal({ minProtocolVersion: 4, maxProtocolVersion: 5, psa: "maintenance at noon" });
      const unknown = server.handshake(undefined).psa!;
      expect(unknown.split("\n\n")).to.have.length(2);
      expect(unknown).to.match(/update your wallet/);
      expect(unknown.endsWith("\n\nmaintenance at noon")).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it("keeps its keys across restarts of one datadir; another datadir has other keys", async () => {
    const dirs = [mkdtempSync(join(tmpdir(), "ark-keys-")), mkdtempSync(join(tmpdir(), "ark-keys-"))];
    try {
      const keysOf = async (dir: string) => {
        const s = await ArkServer.open({ chain: node, datadir: dir, profile: "test" });
        const info = await s.arkInfo();
        const k = [info.serverPubkey, info.mailboxPubkey, (await s.walletStatus()).address] as const;
        await s.close();
        return k;
      };
      const a1 = await keysOf(dirs[0]!);
      const a2 = await keysOf(dirs[0]!);
      const b = await keysOf(dirs[1]!);
      expect(a2).to.deep.equal(a1);
      expect(b[0]).to.not.deep.equal(a1[0]);
      expect(a1[0]).to.not.deep.equal(a1[1]);
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});
