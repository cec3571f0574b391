// A test-only language-model provider for the Project Knowledge extension-host suites.
// It records every request it receives (the exact messages the participant sent) and streams
// a canned reply; the suite reads and steers it through this extension's exports.
const vscode = require('vscode');

const vendor = 'pk-fake';
const model = {
  id: 'pk-fake-model',
  name: 'PK Fake Model',
  family: 'pk-fake',
  version: '1.0.0',
  tooltip: 'Project Knowledge test model',
  maxInputTokens: 8000,
  maxOutputTokens: 1000,
  capabilities: { imageInput: false, toolCalling: false },
  isUserSelectable: true,
};

const state = {
  /** 'reply' | 'language-model-error' | 'error' | 'fail-mid-stream' */
  mode: 'reply',
  /** Tokens per 4 characters: raise it to make the same text cost more of the budget. */
  tokenScale: 1,
  replyFragments: ['Fake answer: ', 'the quoted project source ', 'was read.'],
  /** Replies for the next requests, first in first out; the canned reply once it is empty. */
  queuedReplies: [],
  /** How many of the next requests fail before any other mode applies. */
  failures: 0,
};

/** Every request as { model, at, messages: [{ role: 'user'|'assistant', name, text }] }. */
const requests = [];
let tokenCounts = 0;

function textOf(message) {
  if (typeof message === 'string') return message;
  return message.content
    .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : typeof part?.value === 'string' ? part.value : ''))
    .join('');
}

function roleOf(message) {
  return message.role === vscode.LanguageModelChatMessageRole.Assistant
    ? 'assistant'
    : message.role === vscode.LanguageModelChatMessageRole.User
      ? 'user'
      : String(message.role);
}

/** The fake tokenizer: one token per four characters, times the scale the test chose. */
function countTokens(text) {
  return Math.ceil((text.length / 4) * state.tokenScale);
}

const provider = {
  provideLanguageModelChatInformation() {
    return [model];
  },
  async provideLanguageModelChatResponse(info, messages, _options, progress, token) {
    requests.push({
      model: info.id,
      at: Date.now(),
      messages: messages.map((message) => ({ role: roleOf(message), name: message.name, text: textOf(message) })),
    });
    const queued = state.queuedReplies.shift();
    if (state.failures > 0) {
      state.failures--;
      throw new Error('Fake model failed this request.');
    }
    if (state.mode === 'language-model-error') throw vscode.LanguageModelError.Blocked('Fake quota exhausted for this test.');
    if (state.mode === 'error') throw new Error('Fake model backend is down.');
    for (const [index, fragment] of (queued ?? state.replyFragments).entries()) {
      if (token.isCancellationRequested) return;
      if (state.mode === 'fail-mid-stream' && index === 1) throw new Error('Fake model connection dropped.');
      progress.report(new vscode.LanguageModelTextPart(fragment));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },
  async provideTokenCount(_info, text) {
    tokenCounts++;
    return countTokens(textOf(text));
  },
};

function activate(context) {
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider(vendor, provider));
  return {
    vendor,
    model,
    requests,
    countTokens,
    get tokenCountCalls() {
      return tokenCounts;
    },
    /** Switches how the next requests are answered. */
    setMode(mode) {
      state.mode = mode;
    },
    setTokenScale(scale) {
      state.tokenScale = scale;
    },
    /** The next requests are answered with these fragments, one array per request. */
    queueReplies(...replies) {
      state.queuedReplies.push(...replies);
    },
    /** The next `count` requests fail. */
    failNext(count) {
      state.failures = count;
    },
    reset() {
      requests.length = 0;
      tokenCounts = 0;
      state.mode = 'reply';
      state.tokenScale = 1;
      state.queuedReplies.length = 0;
      state.failures = 0;
    },
  };
}

module.exports = { activate, deactivate() {} };
