import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { BaseChangedError, BlockStore, blockBytes } from '../../src/core/storage/blockStore';
import { Random } from '../bench/random';

/**
 * The block store behind a paged database file (storage/blockStore.ts) against the plainest
 * model of a file, one byte array: random writes (whole and partial blocks), cuts, growths and
 * saves, with a budget of a few blocks so that most written blocks go through the spill file,
 * must read back exactly what the model holds, and a save must write what differs from the disk.
 */

const folders: string[] = [];
after(() => folders.forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));

function folder(): string {
  const made = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-blocks-'));
  folders.push(made);
  return made;
}

const seed = Number.parseInt(process.env.PK_TEST_SEED ?? '', 10);

class Model {
  bytes = Buffer.alloc(0);

  write(source: Buffer, offset: number): void {
    if (offset + source.length > this.bytes.length) this.resize(offset + source.length);
    source.copy(this.bytes, offset);
  }

  resize(size: number): void {
    const next = Buffer.alloc(size);
    this.bytes.copy(next, 0, 0, Math.min(size, this.bytes.length));
    this.bytes = next;
  }
}

describe('block store', () => {
  test('random writes, cuts, growths and saves through a tiny budget read back as a plain byte array', () => {
    const random = new Random(Number.isSafeInteger(seed) ? seed : 20261215);
    const directory = folder();
    const spillPath = path.join(directory, 'spill');
    const opened: number[] = [];
    const store = new BlockStore({
      residentBytes: 16 * blockBytes,
      openSpill: () => {
        const fd = fs.openSync(spillPath, 'w+');
        opened.push(fd);
        return fd;
      },
    });
    const model = new Model();
    // The disk: each save writes what the store says changed into a copy of the last disk file.
    let disk = Buffer.alloc(0);
    let generation = 0;
    const save = () => {
      const next = Buffer.alloc(store.size);
      disk.copy(next, 0, 0, Math.min(disk.length, store.size));
      for (const range of store.changedRanges(64 * 1024)) {
        const piece = Buffer.alloc(range.length);
        assert.equal(store.read(piece, 0, range.offset, range.length), range.length);
        piece.copy(next, range.offset);
      }
      if (!next.equals(model.bytes)) {
        let at = 0;
        while (next[at] === model.bytes[at]) at++;
        assert.fail(
          `the disk after writing the changed ranges differs from the file at ${at} (block ${Math.floor(at / blockBytes)}) of ${store.size}, ${JSON.stringify(store.changedRanges(64 * 1024))}`,
        );
      }
      disk = next;
      const basePath = path.join(directory, `base${generation++}`);
      fs.writeFileSync(basePath, disk);
      store.rebase({ fd: fs.openSync(basePath, 'r'), size: disk.length });
    };
    for (let step = 0; step < 3000; step++) {
      const choice = random.next();
      const size = model.bytes.length;
      if (choice < 0.55) {
        // Mostly page-aligned whole pages, as SQLite writes, and some partial and unaligned ones.
        const aligned = random.chance(0.7);
        const offset = aligned ? random.int(0, Math.ceil(size / blockBytes) + 2) * blockBytes : random.int(0, size + 3 * blockBytes);
        const length = aligned ? random.int(1, 6) * blockBytes : random.int(1, 3 * blockBytes);
        const source = Buffer.alloc(length);
        // Runs of 256 equal bytes, each run its own value: any misplaced or stale piece shows.
        for (let index = 0; index < length; index += 256) source.fill(random.int(0, 255), index, Math.min(length, index + 256));
        store.write(source, 0, offset, length);
        model.write(source, offset);
      } else if (choice < 0.62) {
        const next = random.chance(0.5) ? random.int(0, size) : size + random.int(1, 3 * blockBytes);
        store.truncate(next);
        model.resize(next);
      } else if (choice < 0.65) {
        save();
      } else {
        const offset = random.int(0, size + blockBytes);
        const length = random.int(0, 4 * blockBytes);
        const target = Buffer.alloc(length);
        const count = store.read(target, 0, offset, length);
        const expected = model.bytes.subarray(Math.min(offset, size), Math.min(offset + length, size));
        assert.equal(count, expected.length, `step ${step}: read count at ${offset}`);
        assert.ok(target.subarray(0, count).equals(expected), `step ${step}: bytes at ${offset}`);
      }
      assert.equal(store.size, model.bytes.length);
      assert.ok(store.residentBytes <= 20 * blockBytes, `step ${step}: ${store.residentBytes} bytes resident`);
    }
    const whole = Buffer.alloc(store.size);
    store.read(whole, 0, 0, store.size);
    assert.ok(whole.equals(model.bytes));
    assert.ok(store.spillWrites > 0 && store.spillReads > 0, 'the spill file was used');
    save();
    assert.deepEqual(store.changedRanges(64 * 1024), [], 'nothing to write right after a save');
    store.close();
  });

  test('a base whose check fails is not served', () => {
    const directory = folder();
    const basePath = path.join(directory, 'base');
    fs.writeFileSync(basePath, Buffer.alloc(8 * blockBytes, 7));
    const store = new BlockStore({ residentBytes: 0 });
    let changed = false;
    store.open({
      fd: fs.openSync(basePath, 'r'),
      size: 8 * blockBytes,
      verify: () => {
        if (changed) throw new BaseChangedError('changed');
      },
    });
    const target = Buffer.alloc(blockBytes);
    assert.equal(store.read(target, 0, blockBytes, blockBytes), blockBytes);
    assert.equal(target[0], 7);
    changed = true;
    assert.throws(() => store.read(target, 0, 2 * blockBytes, blockBytes), BaseChangedError);
    store.close();
  });
});
