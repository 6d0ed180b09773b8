import { parentPort, workerData } from 'node:worker_threads';
import { answerOf, decodeRecords } from '../src/services/record-decoding.js';
import { generatedDatasets } from './generate.js';

/**
 * The scale benchmark's generator in a thread of its own (bench/scale.ts, GeneratedBatches): generates a range of the
 * datasets, then decodes and checks them as RecordDecoders' workers do a file's records (src/services/record-decoding.ts),
 * so that the thread writing them spends nothing on making its input, as with `almanac ingest` of a file.
 */
const { datasets } = workerData as { datasets: number };
parentPort!.on('message', (w: { id: number; from: number; to: number }) => {
  try {
    const proposals = [...generatedDatasets({ datasets }, w.from, w.to)];
    parentPort!.postMessage({ id: w.id, proposals: proposals.length, ...answerOf(decodeRecords(proposals, false, false)) });
  } catch (e) {
    parentPort!.postMessage({ id: w.id, error: e instanceof Error ? e.message : String(e) });
  }
});
parentPort!.postMessage({ ready: true });
