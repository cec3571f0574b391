import type { ReferencesResult, Reference } from './references';
import { outlineLine, type FindSymbolResult, type OutlineResult } from './symbols';

/**
 * Plain-text renderings of the navigation answers, shared by `pk` and the MCP server so a person
 * and a model read the same thing. Source lines (a reference's text) are JSON-quoted: they are
 * project data, never instructions.
 */

function unsettledLine(unsettled: string[]): string[] {
  return unsettled.length > 0 ? [`Left out (kept changing while read): ${unsettled.join(', ')}`] : [];
}

export function formatFindSymbol(result: FindSymbolResult): string {
  if (result.matches.length === 0) return [`No current declaration named ${result.name}.`, ...unsettledLine(result.unsettled)].join('\n');
  const lines = result.matches.map((match) => {
    const parent = match.parent ? `  in ${match.parent}` : '';
    const signature = match.signature ? `\n    ${match.signature}` : '';
    return `${match.kind} ${match.qualifiedName}${parent}\n    ${match.citation}${signature}`;
  });
  if (result.truncated) lines.push(`(more declarations match; narrow with kind or path)`);
  return [...lines, ...unsettledLine(result.unsettled)].join('\n');
}

function referenceLine(reference: Reference): string {
  const caller = reference.caller ? `${reference.caller.kind} ${reference.caller.qualifiedName}` : '(top level)';
  return `  ${reference.path}:${reference.line}  [${reference.label}]  ${caller}\n    ${JSON.stringify(reference.text)}`;
}

export function formatReferences(result: ReferencesResult): string {
  const lines: string[] = [];
  if (result.declarations.length > 0) {
    lines.push(`Declarations of ${result.symbol}:`);
    for (const declaration of result.declarations)
      lines.push(`  ${declaration.kind} ${declaration.qualifiedName}  ${declaration.citation}`);
  }
  const extracted = (list: Reference[]) => list.filter((reference) => reference.label === 'extracted').length;
  lines.push(`Uses (${result.references.length}, ${extracted(result.references)} extracted):`);
  lines.push(...(result.references.length > 0 ? result.references.map(referenceLine) : ['  none']));
  lines.push(`Uses in tests (${result.tests.length}, ${extracted(result.tests)} extracted):`);
  lines.push(...(result.tests.length > 0 ? result.tests.map(referenceLine) : ['  none']));
  if (result.note) lines.push(result.note);
  return [...lines, ...unsettledLine(result.unsettled)].join('\n');
}

export function formatOutline(result: OutlineResult): string {
  const lines: string[] = [];
  for (const file of result.files) {
    lines.push(`${file.path}  (${file.language}, ${file.lines} lines, sha256 ${file.sha256})`);
    for (const declaration of file.declarations) lines.push(outlineLine(declaration));
  }
  if (result.files.length === 0) lines.push(`No current file under ${result.path}.`);
  if (result.truncated) {
    lines.push(
      `(cut at the budget of ${result.budgetTokens} tokens: ${result.files.length} of ${result.totalFiles} files shown; ` +
        'outline a sub-folder or file for more)',
    );
  }
  return [...lines, ...unsettledLine(result.unsettled)].join('\n');
}
