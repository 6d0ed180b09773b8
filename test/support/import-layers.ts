import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import graph of a source folder and the two rules its floors keep: no import circle, and no import from a
 * lower floor to a higher one. Every import counts, type-only ones and `import()` too: a type that runs up a floor
 * is still a layer that knows what sits above it.
 */

/** Relative file path (with `/`) → the files of the same folder tree it imports. */
export type ImportGraph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
}

/** Reads every .ts file under root; imports that leave root (packages, node:) are not edges. */
export function importGraph(root: string): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files.map((f) => path.relative(root, f).split(path.sep).join('/')));
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const from = path.relative(root, file).split(path.sep).join('/');
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), fileName));
      const candidates = [resolved.replace(/\.js$/, '.ts'), resolved.replace(/\.js$/, '.tsx'), `${resolved}.ts`, `${resolved}/index.ts`];
      const target = candidates.find((c) => known.has(c));
      if (target) targets.add(target);
    }
    graph.set(from, [...targets].sort());
  }
  return graph;
}

/** Each import circle (a strongly connected set of two files or more, or a file importing itself), its files sorted. */
export function importCircles(graph: ImportGraph): string[][] {
  // Tarjan's strongly connected components, iterative so that a deep chain cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next); low.set(start, next); next++;
    stack.push(start); onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++]!;
        if (!index.has(to)) {
          index.set(to, next); low.set(to, next); next++;
          stack.push(to); onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const members: string[] = [];
        let m: string;
        do {
          m = stack.pop()!;
          onStack.delete(m);
          members.push(m);
        } while (m !== top.node);
        if (members.length > 1 || (graph.get(top.node) ?? []).includes(top.node)) circles.push(members.sort());
      }
    }
  }
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * Floors from the top down, each a list of places: a folder (ending in `/`) or a file. A file stands on the floor
 * of the longest place that holds it; a file no place holds is reported, so that a new folder gets a floor.
 */
export type Floors = readonly (readonly string[])[];

export function floorOf(floors: Floors, file: string): number | undefined {
  let best: { floor: number; length: number } | undefined;
  floors.forEach((places, floor) => {
    for (const place of places) {
      const holds = place.endsWith('/') ? file.startsWith(place) : file === place;
      if (holds && (!best || place.length > best.length)) best = { floor, length: place.length };
    }
  });
  return best?.floor;
}

/** `from -> to` for every import that runs up, and `from: on no floor` for every file the floors leave out. */
export function layerViolations(graph: ImportGraph, floors: Floors): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const mine = floorOf(floors, from);
    if (mine === undefined) {
      found.push(`${from}: on no floor`);
      continue;
    }
    // Floors are listed from the top down: a smaller number is a higher floor.
    for (const to of targets) {
      const theirs = floorOf(floors, to);
      if (theirs !== undefined && theirs < mine) found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

/**
 * Where the transports (http/, graphql/ under root) decide access themselves: a call of the privilege checks
 * (services/authz.ts), the Authorizer (`.authz`, `.allowed(`), the privilege table (model/privileges.ts, REQUIRES) or
 * a refusal of their own (`forbidden(`). Each finding is `file:line: text`; `allowed` names the lines kept on purpose,
 * by file and the text they hold.
 */
export function transportPrivilegeChecks(root: string, allowed: readonly { file: string; text: string }[] = []): string[] {
  const decides = /\b(authorize|authorizeRead|requirePrivilege|requireRead|requireAspectRead|visibleAspects|REQUIRES|forbidden)\s*[[(]|\.allowed\s*\(|\.authz\b|\bservices\/authz\.js|\bmodel\/privileges\.js/;
  const found: string[] = [];
  for (const file of sourceFiles(root)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    if (!rel.startsWith('http/') && !rel.startsWith('graphql/')) continue;
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (!decides.test(line)) return;
      if (allowed.some((a) => a.file === rel && line.includes(a.text))) return;
      found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}
