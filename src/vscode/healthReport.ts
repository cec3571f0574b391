import * as vscode from 'vscode';
import { formatHealth } from '../core/health';
import type { FolderHealth, WorkspaceIndex } from './workspaceIndex';

/** One folder's section of the health check: the engine's report, or the folder's state and why. */
function healthSection(report: FolderHealth): string {
  if (report.health) return formatHealth(report.health);
  if (report.error !== undefined) return vscode.l10n.t('Health of {0} is unavailable: {1}', report.folder.name, report.error);
  return vscode.l10n.t('Project Knowledge health: {0}\nRoot: {1}\n{2}', report.state, report.folder.uri.fsPath, report.message ?? '');
}

/**
 * The health check as plain-text sections: one per folder, then the chat feedback counts. The
 * Health Check command shows them as a document and `@project /health` as text blocks.
 */
export async function healthSections(index: WorkspaceIndex): Promise<string[]> {
  if (!index.trusted)
    return [
      vscode.l10n.t(
        'Project Knowledge health: untrusted\nThis workspace is in Restricted Mode. Nothing was enumerated, no git command ran and no stored index was opened.',
      ),
    ];
  const sections = (await index.health()).map(healthSection);
  if (sections.length === 0) sections.push(vscode.l10n.t('No workspace folder is open.'));
  const feedback = index.feedback();
  if (feedback.length > 0)
    sections.push(
      vscode.l10n.t('Chat feedback (helpful/unhelpful):') +
        '\n' +
        feedback.map(([kind, counts]) => `  ${kind}: ${counts.helpful}/${counts.unhelpful}`).join('\n'),
    );
  return sections;
}
