// Type-checks one package (its own tsconfig) with some files' text replaced in memory, and prints
// the error diagnostics as JSON. Run as a child process by renamedField.int.test.ts so the long,
// synchronous compile does not block the test runner.
//   node compileWithEdits.testkit.mjs <root> <package> '<[[file, from, to], ...]>'
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const [root, pkg, editsJson] = process.argv.slice(2);
const edits = new Map(JSON.parse(editsJson).map(([file, from, to]) => [path.resolve(root, file), { from, to }]));
const edited = (fileName, text) => {
  const edit = edits.get(path.resolve(fileName));
  if (!edit || text === undefined) return text;
  if (!text.includes(edit.from)) throw new Error(`${edit.from} not found in ${fileName}`);
  return text.replace(edit.from, edit.to);
};

const configPath = path.join(root, 'packages', pkg, 'tsconfig.json');
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const host = ts.createCompilerHost(parsed.options);
const readFile = host.readFile.bind(host);
host.readFile = (fileName) => edited(fileName, readFile(fileName));
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, language, onError, create) =>
  edits.has(path.resolve(fileName))
    ? ts.createSourceFile(fileName, edited(fileName, fs.readFileSync(fileName, 'utf8')), language)
    : getSourceFile(fileName, language, onError, create);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true }, host });
const errors = ts
  .getPreEmitDiagnostics(program)
  .filter((d) => d.category === ts.DiagnosticCategory.Error)
  .map((d) => ({
    file: d.file ? path.relative(root, d.file.fileName) : '',
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
process.stdout.write(JSON.stringify(errors));
