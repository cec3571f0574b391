import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ZodTypeAny } from 'zod';
import { toolDescriptions, toolInputs, type ToolName } from '../../src/core/tools/toolSet';

const repository = path.resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repository, 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: unknown[]; mcpServerDefinitionProviders: Array<{ id: string }> };
};
const nls = JSON.parse(fs.readFileSync(path.join(repository, 'package.nls.json'), 'utf8')) as Record<string, string>;

/** The agent-mode tools declared in package.json and the MCP tool each one mirrors. */
const mirrored: Record<string, ToolName> = {
  projectKnowledge_findSymbol: 'find_symbol',
  projectKnowledge_references: 'references',
  projectKnowledge_outline: 'outline',
  projectKnowledge_read: 'read',
};

test("each navigation tool in package.json has the MCP tool's arguments, required ones and description", () => {
  const declared = manifest.contributes.languageModelTools as Array<{
    name: string;
    modelDescription: string;
    inputSchema: { properties: Record<string, unknown>; required?: string[] };
  }>;
  for (const [name, mcpName] of Object.entries(mirrored)) {
    const tool = declared.find((entry) => entry.name === name);
    assert.ok(tool, `${name} is declared`);
    const shape = toolInputs[mcpName] as Record<string, ZodTypeAny>;
    assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), Object.keys(shape).sort(), name);
    assert.deepEqual(
      [...(tool.inputSchema.required ?? [])].sort(),
      Object.keys(shape)
        .filter((key) => !shape[key].isOptional())
        .sort(),
      name,
    );
    assert.equal(nls[tool.modelDescription.replace(/^%|%$/g, '')], toolDescriptions[mcpName], name);
  }
  assert.deepEqual(
    manifest.contributes.mcpServerDefinitionProviders.map((entry: { id: string }) => entry.id),
    ['projectKnowledge.mcp'],
  );
});
