import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * The benchmarks' baseline: a bare Fastify server, in its own process as Almanac is, answering every request (any
 * method, any path, body parsed as Fastify parses JSON) with the bytes in BARE_BODY_FILE.
 */
const body = readFileSync(process.env.BARE_BODY_FILE!);
const type = process.env.BARE_CONTENT_TYPE ?? 'application/json; charset=utf-8';
const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
app.all('/*', async (_req, reply) => reply.type(type).send(body));
app.all('/', async (_req, reply) => reply.type(type).send(body));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
