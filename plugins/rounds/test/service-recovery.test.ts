import { expect } from "chai";
import { FEE, ev, rejection, rig, type Rig } from "./fakes.js";
import type { RoundsService } from "../src/rounds-service.js";
import { MAX_MAINTENANCE_RESUBMITS } from "../src/interactive-rounds.js";
import { errorText } from "../src/errors.js";

describe("rounds service over fakes: resuming at wallet load, and maintenance dropping rejected inputs", () => {
  let r: Rig;
  let s: RoundsService;
  beforeEach(async () => {
    r = await rig();
    s = r.service();
  });
  afterEach(() => r.db.close());

  describe("reconcile at wallet load", () => {
    it("holds the inputs again and records the movement of a participation a crash cut short (row stored, lock and movement not), and tracks it", async () => {
      const inputs = [r.vtxos.add(50_000n), r.vtxos.add(30_000n)];
      const p = await r.store.create({ kind: "interactive", origin: "explicit", inputs, outputs: [{ amountSat: 79_900n, keyIndex: 0, pubkey: "02" + "11".repeat(32) }], feeSat: FEE, inputsLocked: true });
      await s.reconcile();
      const q = (await r.store.get(p.id))!;
      expect(q.status).to.equal("pending");
      expect(inputs.map((i) => r.vtxos.state(i))).to.deep.equal([`locked by round.${p.id}`, `locked by round.${p.id}`]);
      expect(r.movements.get(q.movementId!)).to.deep.include({ status: "pending", feeSat: FEE, inputs });
      expect(r.tracked).to.deep.equal([p.id]);
      await s.reconcile();
      expect(r.movements.size, "idempotent").to.equal(1);
    });

    it("fails a participation whose input is no longer spendable (its other inputs back to spendable, movement failed), but never one that sent its forfeits; the others still resume", async () => {
      const forfeiting = [r.vtxos.add(20_000n)];
      const f = await r.store.create({ kind: "interactive", origin: "explicit", inputs: forfeiting, outputs: [], feeSat: FEE, inputsLocked: true });
      await r.store.update(f.id, { status: "forfeiting" });
      const inputs = [r.vtxos.add(50_000n), r.vtxos.add(30_000n)];
      const p = await r.store.create({ kind: "interactive", origin: "explicit", inputs, outputs: [], feeSat: FEE, inputsLocked: true });
      const fine = [r.vtxos.add(10_000n)];
      const ok = await r.store.create({ kind: "interactive", origin: "explicit", inputs: fine, outputs: [], feeSat: FEE, inputsLocked: true });
      await r.vtxos.markSpent([forfeiting[0]!, inputs[1]!]);
      await s.reconcile();
      expect((await r.store.get(f.id))!.status, "forfeits sent: never failed").to.equal("forfeiting");
      const q = (await r.store.get(p.id))!;
      expect(q).to.deep.include({ status: "failed", inputsLocked: false });
      expect(q.error).to.match(/^failed to lock input VTXOs: VTXO .* is not spendable \(spent\)$/);
      expect(r.vtxos.state(inputs[0]!)).to.equal("spendable");
      expect(r.movements.get(q.movementId!)!.status).to.equal("failed");
      expect(r.vtxos.state(fine[0]!)).to.equal(`locked by round.${ok.id}`);
      expect(r.tracked).to.deep.equal([f.id, p.id, ok.id]);
    });

    it("leaves alone a participation a sync completed after the list of active ones was read (its inputs are spent by then)", async () => {
      const inputs = [r.vtxos.add(50_000n)];
      const p = await s.createInteractive((await s.prepare(inputs))!, "explicit");
      const stale = (await r.store.get(p.id))!;
      await r.store.update(p.id, { status: "done", inputsLocked: false });
      await r.vtxos.markSpent(inputs);
      const active = r.store.active.bind(r.store);
      r.store.active = async () => [stale];
      await s.reconcile();
      r.store.active = active;
      expect((await r.store.get(p.id))!.status).to.equal("done");
      expect(r.movements.get(stale.movementId!)!.status, "the movement is not failed").to.equal("pending");
    });

    it("leaves a delegated participation's inputs spendable (they are not held while it waits)", async () => {
      const inputs = [r.vtxos.add(50_000n)];
      await s.refreshDelegated(inputs);
      await s.reconcile();
      expect(r.vtxos.state(inputs[0]!)).to.equal("spendable");
    });
  });

  describe("creating an interactive refresh", () => {
    it("stores the participation, its inputs' lock and its movement together; a refused lock stores nothing", async () => {
      const inputs = [r.vtxos.add(50_000n), r.vtxos.add(30_000n)];
      const prepared = (await s.prepare(inputs))!;
      await r.vtxos.markSpent([inputs[1]!]);
      const err = await s.createInteractive(prepared, "explicit").then(() => undefined, (e: unknown) => e);
      expect(errorText(err)).to.match(/^Failed to store round participation: failed to lock input VTXOs: VTXO .* is not spendable \(spent\)/);
      expect(await r.store.all(), "no participation row is left behind").to.deep.equal([]);
      expect(r.movements.size, "no movement").to.equal(0);
      expect(r.vtxos.state(inputs[0]!), "the other input stays spendable").to.equal("spendable");
      expect(r.tracked).to.deep.equal([]);
    });

    it("a failure after the lock (the movement not written) leaves no participation for the round task to take up", async () => {
      const inputs = [r.vtxos.add(50_000n)];
      const create = r.ports.movements.create;
      r.ports.movements.create = async () => { throw new Error("disk full"); };
      const err = await s.createInteractive((await s.prepare(inputs))!, "explicit").then(() => undefined, (e: unknown) => e);
      r.ports.movements.create = create;
      expect(errorText(err)).to.contain("disk full");
      expect(await r.store.active(), "nothing pending").to.deep.equal([]);
      expect(r.tracked).to.deep.equal([]);
    });
  });

  describe("maintenance and rejected inputs", () => {
    async function maintenance(n: number): Promise<{ id: number; inputs: string[] }> {
      const inputs = Array.from({ length: n }, (_, i) => r.vtxos.add(BigInt(10_000 + i)));
      const p = await s.createInteractive((await s.prepare(inputs))!, "maintenance");
      return { id: p.id, inputs };
    }

    it("drops the inputs the server rejects and resubmits in the same attempt: re-priced output and fee, movement updated, the dropped input spendable again", async () => {
      const { id, inputs } = await maintenance(3);
      let calls = 0;
      r.submit = async () => { if (calls++ === 0) throw rejection([inputs[1]!]); return new Uint8Array(32).fill(0x11); };
      await s.onRoundEvent(ev.attempt(4, 0), false);
      const p = (await r.store.get(id))!;
      const rest = [inputs[0]!, inputs[2]!];
      expect(p).to.deep.include({ status: "submitted", inputs: rest, feeSat: FEE });
      expect(p.outputs.map((o) => o.amountSat)).to.deep.equal([10_000n + 10_002n - FEE]);
      expect(r.movements.get(p.movementId!)).to.deep.include({ inputs: rest, status: "pending" });
      expect(r.vtxos.state(inputs[1]!)).to.equal("spendable");
      expect(rest.map((i) => r.vtxos.state(i))).to.deep.equal([`locked by round.${id}`, `locked by round.${id}`]);
      expect(r.submitted).to.have.length(2);
    });

    it("fails when every input is rejected (not 'nothing to do'), with everything spendable again", async () => {
      const { id, inputs } = await maintenance(2);
      r.submit = async () => { throw rejection(inputs); };
      await s.onRoundEvent(ev.attempt(4, 0), false);
      const p = (await r.store.get(id))!;
      expect(p.status).to.equal("failed");
      expect(p.error).to.equal(`no VTXOs to refresh after excluding: ${inputs.join(", ")}`);
      expect(inputs.map((i) => r.vtxos.state(i))).to.deep.equal(["spendable", "spendable"]);
      expect(r.movements.get(p.movementId!)!.status).to.equal("failed");
    });

    it(`stops after ${MAX_MAINTENANCE_RESUBMITS} resubmissions`, async () => {
      const { id, inputs } = await maintenance(MAX_MAINTENANCE_RESUBMITS + 3);
      let calls = 0;
      r.submit = async () => { throw rejection([inputs[calls++]!]); };
      await s.onRoundEvent(ev.attempt(4, 0), false);
      const p = (await r.store.get(id))!;
      expect(r.submitted).to.have.length(MAX_MAINTENANCE_RESUBMITS + 1);
      expect(p.status).to.equal("failed");
      expect(p.error).to.match(/^Ark server refused our payment submission: /);
    });

    it("an explicit refresh drops nothing: one rejected input fails it as a whole", async () => {
      const inputs = [r.vtxos.add(50_000n), r.vtxos.add(30_000n)];
      const p = await s.createInteractive((await s.prepare(inputs))!, "explicit");
      r.submit = async () => { throw rejection([inputs[0]!]); };
      await s.onRoundEvent(ev.attempt(4, 0), false);
      const q = (await r.store.get(p.id))!;
      expect(q).to.deep.include({ status: "failed", inputs });
      expect(r.submitted).to.have.length(1);
      expect(inputs.map((i) => r.vtxos.state(i))).to.deep.equal(["spendable", "spendable"]);
      expect(r.movements.get(q.movementId!)).to.deep.include({ status: "failed", inputs });
    });
  });
});
