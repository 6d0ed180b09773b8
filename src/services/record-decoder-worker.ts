import { parentPort } from 'node:worker_threads';
import { answerOf, decodeRecords, type DecodeResult, type DecodeWork } from './record-decoding.js';

/**
 * A worker thread of RecordDecoders (src/services/record-decoding.ts): decodes and checks each batch of records it is
 * sent, and answers with the result as JSON text, its values as texts of their own (answerOf).
 */
parentPort!.on('message', (work: DecodeWork) => {
  let result: DecodeResult;
  try {
    result = { id: work.id, ...answerOf(decodeRecords(work.records, work.texts, work.mayHoldPrototypeKeys)) };
  } catch (e) {
    result = { id: work.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(result);
});
parentPort!.postMessage({ ready: true });
