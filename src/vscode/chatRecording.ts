import * as vscode from 'vscode';

/** What one `@project` response streamed, for whoever listens to `onDidRespond` (the extension-host tests). */
export interface ChatTranscript {
  command: string;
  markdown: string;
  anchors: vscode.Location[];
  references: vscode.Location[];
  buttons: vscode.Command[];
  result: vscode.ChatResult;
}

/** Forwards every part to the chat UI and keeps what was shown, without the user's prompt. */
export class RecordingStream implements vscode.ChatResponseStream {
  readonly markdowns: string[] = [];
  readonly anchors: vscode.Location[] = [];
  readonly references: vscode.Location[] = [];
  readonly buttons: vscode.Command[] = [];

  constructor(private readonly inner: vscode.ChatResponseStream) {}

  private static location(value: vscode.Uri | vscode.Location): vscode.Location {
    return value instanceof vscode.Location ? value : new vscode.Location(value, new vscode.Position(0, 0));
  }

  markdown(value: string | vscode.MarkdownString): void {
    this.markdowns.push(typeof value === 'string' ? value : value.value);
    this.inner.markdown(value);
  }

  anchor(value: vscode.Uri | vscode.Location, title?: string): void {
    this.anchors.push(RecordingStream.location(value));
    this.inner.anchor(value, title);
  }

  button(command: vscode.Command): void {
    this.buttons.push(command);
    this.inner.button(command);
  }

  filetree(value: vscode.ChatResponseFileTree[], baseUri: vscode.Uri): void {
    this.inner.filetree(value, baseUri);
  }

  progress(value: string): void {
    this.inner.progress(value);
  }

  reference(value: vscode.Uri | vscode.Location, iconPath?: vscode.IconPath): void {
    this.references.push(RecordingStream.location(value));
    this.inner.reference(value, iconPath);
  }

  push(part: vscode.ChatResponsePart): void {
    this.inner.push(part);
  }

  /** What was shown, as `onDidRespond` reports it. */
  transcript(command: string, result: vscode.ChatResult): ChatTranscript {
    return {
      command,
      markdown: this.markdowns.join(''),
      anchors: this.anchors,
      references: this.references,
      buttons: this.buttons,
      result,
    };
  }
}
