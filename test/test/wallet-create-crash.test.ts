import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, tempDatadir } from "../src/daemon-process.js";

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
let REGTEST: Record<string, unknown>;
before(async () => { REGTEST = await regtestWallet({ mnemonic: ABANDON }); });

/** Every fault point of the wallet creation, in order (plugins/wallet/src/lifecycle/wallet-lifecycle.ts). */
const FAULT_POINTS = ["after-journal", "after-config", "after-db", "after-mnemonic"];

describe("wallet creation survives kill -9 at every step", function () {
  this.timeout(120_000);

  for (const point of FAULT_POINTS) {
    it(`leaves no wallet or the whole wallet when killed ${point.replace("-", " ")}`, async () => {
      const dir = tempDatadir();
      const d = await startDaemon({ datadir: dir, env: { TENDER_FAULT_INJECT: `wallet-create:${point}` } });
      const req = d.api("POST", "/api/v1/wallet/create", { body: REGTEST }).then(() => "answered", () => "connection lost");
      await new Promise<void>((r) => d.proc.once("exit", () => r()));
      expect(d.proc.signalCode).to.equal("SIGKILL");
      expect(d.stderr(), "the injected fault point is the one that killed it").to.contain(faultPointLine(`wallet-create:${point}`));
      expect(await req).to.equal("connection lost");

      const after = await startDaemon({ datadir: dir });
      try {
        const fp = (await after.api("GET", "/api/v1/wallet")).json as { fingerprint: string | null };
        if (point === "after-mnemonic") {
          // the mnemonic is the commit point: past it, the whole wallet is there
          expect(fp).to.deep.equal({ fingerprint: "53bdf6b1" });
        } else {
          expect(fp).to.deep.equal({ fingerprint: null });
          expect(readdirSync(dir).filter((f) => !["auth_token", "tenderd.lock", "debug.log"].includes(f))).to.deep.equal([]);
          // and a create without force works again
          const r = await after.api("POST", "/api/v1/wallet/create", { body: REGTEST });
          expect(r.json).to.deep.equal({ fingerprint: "53bdf6b1" });
        }
        expect(existsSync(join(dir, "wallet-create.journal"))).to.equal(false);
        expect((await after.api("GET", "/api/v1/wallet")).json).to.deep.equal({ fingerprint: "53bdf6b1" });
      } finally { await after.stop(); cleanup(dir); }
    });
  }
});
