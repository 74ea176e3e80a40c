import { toHex, type PpmExpiryEntry } from "@tender/ark-protocol";
import type { ArkInfo } from "@tender/ark-protocol/server";

const n = (v: bigint | number) => Number(v);
const table = (t: readonly PpmExpiryEntry[]) => t.map((e) => ({ expiry_blocks_threshold: e.expiryBlocksThreshold, ppm: n(e.ppm) }));

/** Formats a number of seconds as barkd's humantime duration (`30s`, `1m 30s`, `1h`). */
export function formatDuration(secs: number): string {
  if (secs <= 0) return "0s";
  const parts: string[] = [];
  const units: [number, string][] = [[86400, "day"], [3600, "h"], [60, "m"], [1, "s"]];
  let rest = secs;
  for (const [size, name] of units) {
    const q = Math.floor(rest / size);
    if (q === 0) continue;
    parts.push(name === "day" ? `${q}day${q === 1 ? "" : "s"}` : `${q}${name}`);
    rest -= q * size;
  }
  return parts.join(" ");
}

/** barkd's `ArkInfo` JSON of the server's Ark info (`vtxo_expiry_delta` repeats `vtxo_lifetime`, as barkd's does). */
export function arkInfoJson(i: ArkInfo): Record<string, unknown> {
  const f = i.fees;
  const lifetime = i.vtxoLifetime;
  return {
    network: i.network,
    server_pubkey: toHex(i.serverPubkey),
    mailbox_pubkey: toHex(i.mailboxPubkey),
    round_interval: formatDuration(i.roundIntervalSecs),
    nb_round_nonces: i.nbRoundNonces,
    vtxo_exit_delta: i.vtxoExitDelta,
    vtxo_lifetime: lifetime,
    htlc_send_expiry_delta: i.htlcSendExpiryDelta,
    htlc_expiry_delta: i.htlcExpiryDelta,
    max_vtxo_amount: i.maxVtxoAmount === undefined ? null : n(i.maxVtxoAmount), // always present, null = no limit
    required_board_confirmations: i.requiredBoardConfirmations,
    max_user_invoice_cltv_delta: i.maxUserInvoiceCltvDelta,
    min_board_amount_sat: n(i.minBoardAmount),
    offboard_feerate_sat_per_kvb: n(i.offboardFeerateSatVkb),
    ln_receive_anti_dos_required: i.lnReceiveAntiDosRequired,
    fees: {
      board: { min_fee_sat: n(f.board.minFeeSat), base_fee_sat: n(f.board.baseFeeSat), ppm: n(f.board.ppm) },
      offboard: { base_fee_sat: n(f.offboard.baseFeeSat), fixed_additional_vb: n(f.offboard.fixedAdditionalVb), ppm_expiry_table: table(f.offboard.ppmExpiryTable) },
      refresh: { base_fee_sat: n(f.refresh.baseFeeSat), ppm_expiry_table: table(f.refresh.ppmExpiryTable) },
      lightning_receive: { base_fee_sat: n(f.lightningReceive.baseFeeSat), ppm: n(f.lightningReceive.ppm) },
      lightning_send: { min_fee_sat: n(f.lightningSend.minFeeSat), base_fee_sat: n(f.lightningSend.baseFeeSat), ppm_expiry_table: table(f.lightningSend.ppmExpiryTable) },
    },
    max_vtxo_exit_depth: i.maxVtxoExitDepth,
    tos_link: i.tosLink ?? null,
    max_offboard_inputs: i.maxOffboardInputs,
    vtxo_expiry_delta: lifetime,
  };
}
