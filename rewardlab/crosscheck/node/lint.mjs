// RewardLab's BPMN external grader: bpmn-moddle imports each document, bpmnlint (recommended
// config) lints it. Usage: node lint.mjs MODULES_DIR, where MODULES_DIR holds the node_modules
// installed by scripts/setup-graders.sh. Reads one JSON request per line on stdin,
// {"xml": "<definitions ...>"}, and prints one JSON line per request, in order:
// {"import_error": string|null, "import_warnings": [string], "elements": int (flow elements, flows
//  included, in every process and sub-process), "derived_references": int,
//  "reports": {rule: [{id, message, category}]}}.
// BPMN 2.0 defines a flow node's <incoming>/<outgoing> as redundant with the flows' sourceRef and
// targetRef, and many tools omit them, but bpmnlint reads only the former: before linting, every
// sequence flow is added to its source's outgoing and its target's incoming where missing (counted
// in derived_references), so that an omitted optional element does not read as "not connected".
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const modulesDir = process.argv[2];
if (!modulesDir) {
  process.stderr.write('usage: node lint.mjs MODULES_DIR\n');
  process.exit(2);
}
const scoped = createRequire(path.join(path.resolve(modulesDir), 'package.json'));
const { Linter } = scoped('bpmnlint');
const NodeResolver = scoped('bpmnlint/lib/resolver/node-resolver');
const { BpmnModdle } = await import(pathToFileURL(scoped.resolve('bpmn-moddle')).href);

const linter = new Linter({
  config: { extends: 'bpmnlint:recommended' },
  resolver: new NodeResolver({ require: scoped }),
});

async function grade(xml) {
  const moddle = new BpmnModdle();
  let imported;
  try {
    imported = await moddle.fromXML(xml, 'bpmn:Definitions');
  } catch (error) {
    return {
      import_error: String((error && error.message) || error).split('\n')[0],
      import_warnings: [],
      elements: 0,
      derived_references: 0,
      reports: {},
    };
  }
  const importWarnings = (imported.warnings || []).map((w) => String(w.message || w).split('\n')[0]);
  const { derived, elements } = deriveReferences(imported.rootElement);
  const raw = await linter.lint(imported.rootElement);
  const reports = {};
  for (const [rule, items] of Object.entries(raw)) {
    reports[rule] = items.map((r) => ({ id: r.id || null, message: r.message, category: r.category }));
  }
  return { import_error: null, import_warnings: importWarnings, elements, derived_references: derived, reports };
}

function deriveReferences(definitions) {
  let derived = 0;
  let elements = 0;
  const link = (node, property, flow) => {
    if (!node || typeof node.get !== 'function') return;
    const list = node.get(property);
    if (Array.isArray(list) && !list.includes(flow)) {
      list.push(flow);
      derived += 1;
    }
  };
  const walk = (container) => {
    for (const element of (container && container.flowElements) || []) {
      elements += 1;
      if (element.$instanceOf('bpmn:SequenceFlow')) {
        link(element.sourceRef, 'outgoing', element);
        link(element.targetRef, 'incoming', element);
      }
      if (element.flowElements) walk(element);
    }
  };
  for (const root of definitions.rootElements || []) walk(root);
  return { derived, elements };
}

let chain = Promise.resolve();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  chain = chain.then(async () => {
    let answer;
    try {
      answer = await grade(JSON.parse(line).xml);
    } catch (error) {
      answer = { import_error: null, grader_error: String(error && error.stack || error), import_warnings: [], reports: {} };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  });
});
