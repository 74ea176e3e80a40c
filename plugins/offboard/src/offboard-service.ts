/**
 * Starting offboards and estimating them: what the routes and the fee estimators call. Wraps the
 * kernel's {@link ActionEngine} for the `offboard.offboard` action.
 */
import { randomUUID } from "node:crypto";
import { InternalServerError, type ActionEngine, type ActionStatus } from "@tender/core";
import { toHex } from "@tender/ark-protocol";
import type { OffboardPorts, OffboardVtxo } from "./offboard-ports.js";
import {
  OffboardRefusedError, estimateSendOnchain, estimateWholeOffboard, planSendOnchain, planWholeOffboard, type OffboardEstimate, type PlanContext,
} from "./offboard-plan.js";
import { OFFBOARD_ACTION_KIND, type OffboardState } from "./offboard-state.js";

/** A parsed destination: the address as given and its output script. */
export interface Destination {
  readonly address: string;
  readonly script: Uint8Array;
}

/** The wallet's offboards. */
export class OffboardService {
  constructor(private readonly engine: ActionEngine, private readonly ports: OffboardPorts) {}

  /** What plans and estimates are computed with: the server's info and offboard fee rate, the tip. */
  async context(script: Uint8Array): Promise<PlanContext> {
    const [info, feeRateSatPerKwu, tipHeight] = await Promise.all([this.ports.server.info(), this.ports.server.feeRateSatPerKwu(), this.ports.chain.tipHeight()]);
    return { info, feeRateSatPerKwu, tipHeight, script };
  }

  /** Offboards the VTXOs `ids` whole (or every spendable one with `"all"`); resolves with the offboard txid once it is broadcast. */
  async offboard(ids: readonly string[] | "all", to: Destination): Promise<string> {
    const c = await this.context(to.script);
    return this.run(async (spendable) => {
      const inputs = ids === "all" ? [...spendable] : await Promise.all(ids.map(async (id) => (await this.ports.vtxos.get(id)) ?? missing(id)));
      const plan = planWholeOffboard(c, inputs);
      return {
        kind: "offboard", destination: to.address, scriptHex: toHex(to.script), netSat: String(plan.netSat), feeSat: String(plan.feeSat),
        feeRateSatPerKwu: String(c.feeRateSatPerKwu), inputIds: inputs.map((v) => v.id),
      };
    });
  }

  /** Sends exactly `amountSat` to `to` from the Ark balance (fee on top, change kept on Ark); resolves with the offboard txid. */
  async sendOnchain(to: Destination, amountSat: bigint): Promise<string> {
    const c = await this.context(to.script);
    const splitFactor = await this.ports.settings.changeSplitFactor();
    return this.run(async (spendable) => {
      const plan = planSendOnchain(c, to.address, spendable, amountSat, splitFactor);
      const offboardKey = await this.ports.keys.next();
      const changeKeys = [];
      for (let i = 0; i < plan.changeSat.length; i++) changeKeys.push((await this.ports.keys.next()).index);
      return {
        kind: "send_onchain", destination: to.address, scriptHex: toHex(to.script), netSat: String(amountSat), feeSat: String(plan.feeSat),
        feeRateSatPerKwu: String(c.feeRateSatPerKwu), inputIds: plan.inputs.map((v) => v.id),
        offboardKeyIndex: offboardKey.index, changeKeyIndexes: changeKeys, changeAmounts: plan.changeSat.map(String),
      };
    });
  }

  /** Estimate of offboarding the given VTXOs whole. */
  async estimateOffboard(vtxos: readonly OffboardVtxo[], to: Destination): Promise<OffboardEstimate> {
    return estimateWholeOffboard(await this.context(to.script), vtxos);
  }

  /** Estimate of offboarding every spendable VTXO. */
  async estimateOffboardAll(to: Destination): Promise<OffboardEstimate> {
    const c = await this.context(to.script);
    return this.ports.vtxos.select(async (spendable) => estimateWholeOffboard(c, spendable));
  }

  /** Estimate of a send-onchain of `amountSat`. */
  async estimateSendOnchain(to: Destination, amountSat: bigint): Promise<OffboardEstimate> {
    const c = await this.context(to.script);
    return this.ports.vtxos.select(async (spendable) => estimateSendOnchain(c, spendable, amountSat));
  }

  /** Drives every unfinished offboard once now (the wallet's sync); one offboard's error does not stop the others. */
  async syncPending(onError: (id: string, e: unknown) => void = () => undefined): Promise<void> {
    for (const a of await this.engine.unfinished<OffboardState>(OFFBOARD_ACTION_KIND)) await this.engine.drive(a.id).catch((e: unknown) => onError(a.id, e));
  }

  /**
   * Plans inside the VTXO selection (so no other action takes the inputs meanwhile), persists the
   * action and lets its first step lock the inputs there; then drives it outside the selection
   * until the offboard tx is out (or the action fails or waits).
   */
  private async run(plan: (spendable: readonly OffboardVtxo[]) => Promise<OffboardState>): Promise<string> {
    const id = randomUUID();
    let started: ActionStatus<OffboardState>;
    try {
      started = await this.ports.vtxos.select(async (spendable) => this.engine.start<OffboardState>(OFFBOARD_ACTION_KIND, await plan(spendable), id));
    } catch (e) {
      if (e instanceof OffboardRefusedError) throw new InternalServerError(e.message);
      throw e;
    }
    const status = started.step === "failed" ? started : ((await this.engine.drive(id)) as ActionStatus<OffboardState>);
    if (status.step === "failed") throw new InternalServerError(status.error ?? status.state.failure ?? "offboard failed");
    const txid = status.state.offboardTxid;
    if (txid !== undefined && (status.step === "confirming" || status.step === "done")) return txid;
    throw new InternalServerError(
      `offboard ${id} could not complete yet (${status.state.lastError ?? `waiting in step ${status.step}`}); it remains pending and will be retried on wallet sync`,
    );
  }
}

function missing(id: string): never {
  throw new OffboardRefusedError(`cannot find requested vtxo: ${id}`);
}
