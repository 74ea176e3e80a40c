import { expect } from "chai";
import { silentLogger } from "@tender/core";
import { rig, type Rig } from "./fakes.js";
import type { RoundsService } from "../src/rounds-service.js";
import { RoundOutcomes } from "../src/round-outcomes.js";
import type { Participation } from "../src/participation.js";

/**
 * A delegated refresh is stored, then submitted under its participation's lock; the sync task
 * (every participation not ended, every few hundred ms) may take it up in between.
 */
describe("delegated refresh: the request and the sync task on one participation", () => {
  let r: Rig;
  let s: RoundsService;
  let submissions: number;
  beforeEach(async () => {
    r = await rig();
    s = r.service();
    submissions = 0;
    r.ports.server.submitRoundParticipation = async () => {
      submissions++;
      return new Uint8Array(32).fill(0x22);
    };
  });
  afterEach(() => r.db.close());

  /** Runs `task` (what the sync task did meanwhile) when the request first reads its participation under the lock. */
  function taskRunsFirst(task: (p: Participation) => Promise<void>): void {
    const get = r.store.get.bind(r.store);
    let ran = false;
    r.store.get = async (id) => {
      if (!ran) {
        ran = true;
        await task((await get(id))!);
      }
      return get(id);
    };
  }

  it("submits nothing more when the sync task submitted it first, and answers it pending", async () => {
    taskRunsFirst(async (p) => {
      await r.ports.server.submitRoundParticipation({} as never);
      await r.store.update(p.id, { unlockHash: "22".repeat(32) });
    });
    const info = await s.refreshDelegated([r.vtxos.add(50_000n)]);
    expect(info).to.not.equal(undefined);
    expect(submissions, "one submission, the task's").to.equal(1);
  });

  it("answers the error the sync task stored when it failed the participation first, and submits nothing", async () => {
    const error = "error submitting round participation to server: input vtxo(s) not spendable";
    taskRunsFirst(async (p) => {
      await r.store.update(p.id, { status: "failed", error, inputsLocked: false });
      await r.ports.movements.finish(p.movementId!, "failed");
    });
    const failed = await s.refreshDelegated([r.vtxos.add(50_000n)]).then(() => undefined, (e: Error) => e);
    // the answer's chain of contexts, as the HTTP error shows it
    expect([failed?.message, (failed?.cause as Error | undefined)?.message]).to.deep.equal(["Failed to store round participation", error]);
    expect(submissions).to.equal(0);
    expect([...r.movements.values()].map((m) => m.status)).to.deep.equal(["failed"]);
  });

  it("failing a participation read before its movement was attached still fails that movement (the stored row names it)", async () => {
    const stale = await r.store.create({ kind: "delegated", origin: "explicit", inputs: [r.vtxos.add(50_000n)], outputs: [], feeSat: 100n, inputsLocked: false });
    const movementId = await r.ports.movements.create({ inputs: stale.inputs, feeSat: stale.feeSat });
    await r.store.update(stale.id, { movementId });
    expect(stale.movementId).to.equal(null);
    await new RoundOutcomes(r.store, r.ports, silentLogger).fail(stale, "refused");
    expect(r.movements.get(movementId)!.status).to.equal("failed");
    expect((await r.store.get(stale.id))!.status).to.equal("failed");
  });
});
