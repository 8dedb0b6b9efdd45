import { at } from '../core/at';

/** CRC16-CCITT (XModem) table, the checksum Redis Cluster hashes keys with. */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

/**
 * The cluster slot of a key, as Redis computes it: CRC16 of the key's hash tag (the text between
 * the first `{` and the next `}`, when not empty) or of the whole key, modulo 16384.
 */
export function keySlot(key: string): number {
  let bytes = Buffer.from(key);
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ at(TABLE, ((crc >> 8) ^ byte) & 0xff);
  return crc % 16384;
}
