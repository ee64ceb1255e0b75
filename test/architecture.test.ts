import { expect } from 'chai';
import { createRequire } from 'node:module';
import { cruise, type IReporterOutput, type ICruiseResult } from 'dependency-cruiser';
import { REPO_ROOT } from './support/test-server.js';

const require = createRequire(import.meta.url);

describe('architecture', () => {
  it('keeps the domain pure, ports free of adapters, adapters apart and out of src/app, and src free of cycles', async function () {
    this.timeout(60_000);
    const rules = require(`${REPO_ROOT}/.dependency-cruiser.cjs`);
    process.chdir(REPO_ROOT);
    const out: IReporterOutput = await cruise(['src'], { ruleSet: rules, validate: true, ...rules.options });
    const result = out.output as ICruiseResult;
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(result.summary.totalCruised, 'modules cruised').to.be.greaterThan(20);
    expect(violations).to.deep.equal([]);
  });

  it('would catch a domain module importing node:fs (the rules are live)', async function () {
    this.timeout(60_000);
    const rules = require(`${REPO_ROOT}/.dependency-cruiser.cjs`);
    const out = await cruise(['test/fixtures/architecture'], { ruleSet: { forbidden: rules.forbidden.map((r: { from: object }) => ({ ...r, from: { path: '^test/fixtures/architecture/domain/' } })).slice(0, 1) }, validate: true, ...rules.options });
    const result = out.output as ICruiseResult;
    expect(result.summary.violations.map((v) => v.to)).to.include('fs');
  });

  it('would catch a driven adapter importing a use case from src/app (the rule is live)', async function () {
    this.timeout(60_000);
    const rules = require(`${REPO_ROOT}/.dependency-cruiser.cjs`);
    const rule = rules.forbidden.find((r: { name: string }) => r.name === 'driven-adapters-do-not-know-the-core');
    const fixtures = '^test/fixtures/architecture/';
    const moved = { ...rule, from: { path: rule.from.path.replace('^src/', fixtures) }, to: { path: rule.to.path.replace('^src/', fixtures) } };
    const out = await cruise(['test/fixtures/architecture'], { ruleSet: { forbidden: [moved] }, validate: true, ...rules.options });
    const result = out.output as ICruiseResult;
    expect(result.summary.violations.map((v) => `${v.from} -> ${v.to}`)).to.deep.equal(['test/fixtures/architecture/adapters/lake/reaches-into-app.ts -> test/fixtures/architecture/app/use-case.ts']);
  });
});
