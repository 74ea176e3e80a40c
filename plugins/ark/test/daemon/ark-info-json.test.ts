import { expect } from "chai";
import type { ArkInfo } from "@tender/ark-protocol/server";
import { arkInfoJson, formatDuration } from "../../src/daemon/connection/ark-info-json.js";
import { SERVER, randomKey } from "./fixtures.js";

describe("Ark info JSON (barkd's ArkInfo)", () => {
  it("formats the round interval as a humantime duration", () => {
    expect([30, 90, 3600, 3661, 86_400, 172_800 + 60].map(formatDuration)).to.deep.equal(["30s", "1m 30s", "1h", "1h 1m 1s", "1day", "2days 1m"]);
  });

  it("maps every field, keeps max_vtxo_amount null without a limit and vtxo_expiry_delta equal to vtxo_lifetime", () => {
    const mailbox = randomKey().pk;
    const fees = {
      board: { minFeeSat: 1n, baseFeeSat: 2n, ppm: 3n },
      offboard: { baseFeeSat: 4n, fixedAdditionalVb: 5n, ppmExpiryTable: [{ expiryBlocksThreshold: 10, ppm: 6n }] },
      refresh: { baseFeeSat: 7n, ppmExpiryTable: [] },
      lightningReceive: { baseFeeSat: 8n, ppm: 9n },
      lightningSend: { minFeeSat: 10n, baseFeeSat: 11n, ppmExpiryTable: [] },
    };
    const info: ArkInfo = {
      network: "regtest", serverPubkey: SERVER.pk, mailboxPubkey: mailbox, roundIntervalSecs: 30, nbRoundNonces: 8, vtxoExitDelta: 12,
      vtxoLifetime: 432, htlcSendExpiryDelta: 258, htlcExpiryDelta: 6, requiredBoardConfirmations: 2, maxVtxoAmount: undefined,
      maxUserInvoiceCltvDelta: 58, minBoardAmount: 20_000n, offboardFeerateSatVkb: 10_000n, lnReceiveAntiDosRequired: true, fees,
      maxVtxoExitDepth: 50, maxOffboardInputs: 100, tosLink: undefined,
    };
    const json = arkInfoJson(info);
    expect(json).to.deep.include({
      network: "regtest", server_pubkey: Buffer.from(SERVER.pk).toString("hex"), mailbox_pubkey: Buffer.from(mailbox).toString("hex"),
      round_interval: "30s", vtxo_lifetime: 432, vtxo_expiry_delta: 432, max_vtxo_amount: null, min_board_amount_sat: 20_000,
      offboard_feerate_sat_per_kvb: 10_000, ln_receive_anti_dos_required: true, tos_link: null, max_vtxo_exit_depth: 50,
    });
    expect(json.fees).to.deep.equal({
      board: { min_fee_sat: 1, base_fee_sat: 2, ppm: 3 },
      offboard: { base_fee_sat: 4, fixed_additional_vb: 5, ppm_expiry_table: [{ expiry_blocks_threshold: 10, ppm: 6 }] },
      refresh: { base_fee_sat: 7, ppm_expiry_table: [] },
      lightning_receive: { base_fee_sat: 8, ppm: 9 },
      lightning_send: { min_fee_sat: 10, base_fee_sat: 11, ppm_expiry_table: [] },
    });
    expect(arkInfoJson({ ...info, maxVtxoAmount: 1_000_000n }).max_vtxo_amount).to.equal(1_000_000);
  });
});
