import type { ArkAddress } from "@tender/ark-protocol";

/** A `POST /wallet/send` destination the Ark rail pays: an Ark address, decoded. */
export interface ArkDestination {
  kind: "ark";
  address: string;
  decoded: ArkAddress;
}
