import { parentPort } from 'node:worker_threads';
import { answerOf, decodeProposalBatch, decodeRecords, type DecodeResult, type DecodeWork } from './record-decoding.js';

/**
 * A worker thread of RecordDecoders (src/services/record-decoding.ts): decodes and checks each batch of records it is
 * sent, and answers with the result as JSON text, its values as texts of their own (answerOf).
 */
parentPort!.on('message', (work: DecodeWork) => {
  let result: DecodeResult;
  try {
    const records = work.proposalBatch ? [decodeProposalBatch(work.proposalBatch.text, work.proposalBatch.maxItems)]
      : decodeRecords(work.records, work.texts, work.mayHoldPrototypeKeys);
    result = { id: work.id, ...answerOf(records) };
  } catch (e) {
    result = { id: work.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(result);
});
parentPort!.postMessage({ ready: true });
