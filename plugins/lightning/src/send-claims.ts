import { resolve } from "node:path";
import { BadRequestError } from "@tender/core";
import type { Bolt11Invoice, Bolt12Offer, Lnurl, SendDestinations } from "@tender/plugin-wallet";
import type { LightningSender } from "./lightning-sender.js";
import { lightningAddressUrl, LnurlPayError, parseHostOverrides, type LnurlHostOverrides, type LnurlSettings } from "./lnurl-pay.js";

/**
 * Claims the Lightning kinds of `POST /wallet/send` (and so of `POST /lightning/pay`): BOLT11
 * invoices, BOLT12 offers, Lightning addresses and LNURL-pay.
 */
export function claimSendKinds(send: SendDestinations, sender: LightningSender, plugin: string): void {
  send.claim("bolt11", plugin, async (d) => sender.payInvoice(d.decoded as Bolt11Invoice, d.amountSat));
  send.claim("bolt12", plugin, async (d) => sender.payOffer(d.decoded as Bolt12Offer, d.amountSat));
  // the classifier requires an amount for both LNURL kinds
  send.claim("lnurl", plugin, async (d) => sender.payLnurl((d.decoded as Lnurl).url, d.amountSat!, d.comment));
  send.claim("lightning-address", plugin, async (d) => {
    let url: string;
    try {
      url = lightningAddressUrl(d.value);
    } catch (e) {
      if (e instanceof LnurlPayError) throw new BadRequestError(e.message);
      throw e;
    }
    return sender.payLnurl(url, d.amountSat!, d.comment);
  });
}

/**
 * The LNURL host overrides of a regtest wallet: plugin config `lnurlHostOverrides`
 * (`{"host": "http://127.0.0.1:port/prefix"}`) and `TENDER_LNURL_HOST_OVERRIDE`
 * (`host=url,…`). Production networks ignore them (https only).
 */
export function lnurlHostOverrides(pluginConfig: Record<string, unknown>): LnurlHostOverrides {
  return parseHostOverrides(process.env.TENDER_LNURL_HOST_OVERRIDE, pluginConfig.lnurlHostOverrides);
}

/**
 * The wallet's LNURL settings: the host overrides above, and the PEM file of an extra CA trusted
 * for LNURL and Lightning-address requests only (`TENDER_LNURL_CA_FILE`, else plugin config
 * `lnurlCaFile`; a relative path is taken from the working directory). The default CAs still
 * apply. The file is read at each request, so a devnet restarted with a new CA is picked up.
 */
export function lnurlSettings(pluginConfig: Record<string, unknown>): LnurlSettings {
  const configured = process.env.TENDER_LNURL_CA_FILE || pluginConfig.lnurlCaFile;
  if (configured !== undefined && (typeof configured !== "string" || configured.trim() === "")) throw new Error("lightning plugin: lnurlCaFile must be a file path");
  return { overrides: lnurlHostOverrides(pluginConfig), ...(configured !== undefined ? { caFile: resolve(configured) } : {}) };
}
