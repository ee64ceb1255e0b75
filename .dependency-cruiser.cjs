/** Architecture rules, checked by test/architecture.test.ts as part of npm test. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside src/domain: no adapters, app, ports, packages or node built-ins.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'ports-are-interfaces',
      comment: 'src/ports may name domain types only; never adapters or app code.',
      severity: 'error',
      from: { path: '^src/ports/' },
      to: { path: '^src/(adapters|app|http)/' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment: 'One adapter family never imports another (http may not reach into lake, and so on).',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/([^/]+)/', pathNot: '^src/adapters/$1/' },
    },
    {
      name: 'core-does-not-know-adapters',
      comment: 'Only the composition root (src/app/container.ts and its binding modules in src/app/composition) constructs adapters.',
      severity: 'error',
      from: { path: '^src/app/', pathNot: '^src/app/(container\\.ts$|composition/)' },
      to: { path: '^src/(adapters|http)/' },
    },
    {
      name: 'formats-stand-alone',
      comment: 'src/formats (format records, encoders, conformance classes) is read by the HTTP side, jobs and the composition root; it knows none of them.',
      severity: 'error',
      from: { path: '^src/formats/' },
      to: { path: '^src/(adapters|app|http)/' },
    },
    {
      name: 'driven-adapters-do-not-know-the-core',
      comment: 'Driven adapters implement ports and never import use cases or the composition root: what both sides need lives in src/ports (contracts, kinds) or src/domain (pure code).',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle in src: a cycle means two modules are one, or a shared piece wants a module of its own.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'driven-adapters-do-not-know-http',
      comment: 'The HTTP side drives the use cases; no driven adapter imports it.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/http/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
