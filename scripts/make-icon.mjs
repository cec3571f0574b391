#!/usr/bin/env node
// Draws media/icon.png (128×128, the marketplace icon): a database cylinder with a check mark.
// Kept as a script so the icon can be regenerated without an image editor.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const size = 128;
const pixels = Buffer.alloc(size * size * 4);
const background = [30, 58, 95];
const body = [120, 190, 255];
const accent = [80, 220, 140];

function inEllipse(x, y, cx, cy, rx, ry) {
  return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
}

function distanceToSegment(x, y, [ax, ay], [bx, by]) {
  const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
  return Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay)));
}

for (let y = 0; y < size; y++) {
  for (let x = 0; x < size; x++) {
    const corner = 24;
    const dx = Math.max(corner - x, x - (size - 1 - corner), 0);
    const dy = Math.max(corner - y, y - (size - 1 - corner), 0);
    let color = Math.hypot(dx, dy) <= corner ? background : null;
    const inCylinder = (x >= 30 && x <= 98 && y >= 30 && y <= 92) || inEllipse(x, y, 64, 30, 34, 12) || inEllipse(x, y, 64, 92, 34, 12);
    if (color && inCylinder) color = body;
    if (color && (inEllipse(x, y, 64, 30, 30, 8) || (Math.abs(((x - 64) / 34) ** 2 + ((y - 56) / 12) ** 2 - 1) < 0.08 && y > 56)))
      color = background;
    const check = Math.min(distanceToSegment(x, y, [70, 92], [82, 104]), distanceToSegment(x, y, [82, 104], [108, 74]));
    if (color && check <= 6) color = accent;
    const offset = (y * size + x) * 4;
    if (color) pixels.set([...color, 255], offset);
  }
}

const rows = Buffer.alloc(size * (size * 4 + 1));
for (let y = 0; y < size; y++) pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc = (buffer) => {
  let c = 0xffffffff;
  for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc(typed));
  return Buffer.concat([length, typed, sum]);
};
const header = Buffer.alloc(13);
header.writeUInt32BE(size, 0);
header.writeUInt32BE(size, 4);
header.set([8, 6, 0, 0, 0], 8);
const png = Buffer.concat([
  Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(rows)),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../media/icon.png', import.meta.url), png);
console.log(`media/icon.png: ${png.length} bytes`);
