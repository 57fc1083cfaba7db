import ts from 'typescript';

/**
 * What the TypeScript compiler finds in files an integrator would write, under strict settings on
 * Node's module resolution with the DOM's types (fetch) and no ambient @types: the diagnostics,
 * nothing emitted.
 */
export function strictDiagnostics(files: readonly string[]): readonly ts.Diagnostic[] {
  const program = ts.createProgram([...files], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program);
}
