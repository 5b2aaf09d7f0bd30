// Type-checks the builds of some packages (the sources under packages/<package>/src, tests left out)
// with some files' text replaced in memory, and prints each package's error diagnostics as JSON:
// `{ "<package>": [{ file, message }, ...], ... }`. Run as a child process by
// renamedField.int.test.ts so the long, synchronous compile does not block the test runner.
//   node compileWithEdits.testkit.mjs <root> '<[[file, from, to], ...]>' <package>...
// The packages' programs share their parsed files (node's and React's types, the ui package, zod), as
// the TypeScript language service shares them between projects: each file is parsed once.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const [root, editsJson, ...packages] = process.argv.slice(2);
const edits = new Map(JSON.parse(editsJson).map(([file, from, to]) => [path.resolve(root, file), { from, to }]));
const edited = (fileName, text) => {
  const edit = edits.get(path.resolve(fileName));
  if (!edit || text === undefined) return text;
  if (!text.includes(edit.from)) throw new Error(`${edit.from} not found in ${fileName}`);
  return text.replace(edit.from, edit.to);
};

/** Parsed files by name and language version, shared by the packages' programs. */
const parsedFiles = new Map();
const errorsByPackage = {};
for (const pkg of packages) {
  const configPath = path.join(root, 'packages', pkg, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => edited(fileName, readFile(fileName));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, create) => {
    const key = `${fileName}\0${JSON.stringify(language)}`;
    let file = parsedFiles.get(key);
    if (!file) {
      file = edits.has(path.resolve(fileName))
        ? ts.createSourceFile(fileName, edited(fileName, fs.readFileSync(fileName, 'utf8')), language)
        : getSourceFile(fileName, language, onError, create);
      if (file) parsedFiles.set(key, file);
    }
    return file;
  };
  // The build: the package's own sources, without its tests and test kits.
  const own = `${path.join(root, 'packages', pkg, 'src')}${path.sep}`;
  const rootNames = parsed.fileNames.filter((f) => path.resolve(f).startsWith(own) && !/\.(test|testkit)\.[cm]?[jt]sx?$/.test(f));
  if (rootNames.length === 0) throw new Error(`no sources under ${own}`);
  const program = ts.createProgram({ rootNames, options: { ...parsed.options, noEmit: true }, host });
  errorsByPackage[pkg] = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => ({
      file: d.file ? path.relative(root, d.file.fileName) : '',
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
}
process.stdout.write(JSON.stringify(errorsByPackage));
