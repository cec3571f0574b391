import { performance } from 'node:perf_hooks';
import type { SyncContext } from '../sync';
import type { CurationHealth, ProjectCuration, TrainOutcome } from './curation';
import type { FeedbackLabel, LabelSource, PinTarget } from './log';
import type { ResolvedPin } from './pins';
import type { RankingMode } from './ranker';
import type { MemoryRow } from './tables';

/** A pin as listed (tree view, `pk pins`): where it stands now, without its text. */
export type ListedPin = Omit<ResolvedPin, 'text'>;

/**
 * Every curation request by name, with its parameters and result: the engine, the worker and
 * the CLI share this map, so a new request without a handler does not compile.
 */
export interface CurationOps {
  pins: { params: Record<string, never>; result: ListedPin[] };
  pin: { params: { target: PinTarget }; result: { id: string; created: boolean } };
  unpin: { params: { id: string }; result: { id: string } };
  memory: { params: Record<string, never>; result: MemoryRow[] };
  remember: { params: { claim: string; key?: string }; result: { id: string; created: boolean } };
  supersede: { params: { id: string; claim: string; key?: string }; result: { id: string; created: boolean } };
  invalidate: { params: { id: string; reason?: string }; result: { id: string } };
  expire: { params: { id: string; reason?: string }; result: { id: string } };
  label: { params: { query: string; label: FeedbackLabel; source: LabelSource; snippetIds?: string[] }; result: { ids: string[] } };
  train: { params: Record<string, never>; result: TrainOutcome };
  setRankingMode: { params: { mode: RankingMode }; result: { mode: RankingMode } };
  health: { params: Record<string, never>; result: CurationHealth };
}

export type CurationOp = keyof CurationOps;

/** One request as a message: its name and parameters (the worker protocol's `curate`). */
export type CurationRequest = { [N in CurationOp]: { op: N; params: CurationOps[N]['params'] } }[CurationOp];

/** A resolved pin without its text: the listing never carries source. */
function listed(pin: ResolvedPin): ListedPin {
  const copy: Partial<ResolvedPin> = { ...pin };
  delete copy.text;
  return copy as ListedPin;
}

type Handlers = { [N in CurationOp]: (params: CurationOps[N]['params']) => Promise<CurationOps[N]['result']> };

function handlers(context: SyncContext, curation: ProjectCuration): Handlers {
  return {
    pins: async () => (await curation.pins(context)).map(listed),
    pin: ({ target }) => curation.pin(context, target),
    unpin: async ({ id }) => {
      await curation.unpin(id);
      return { id };
    },
    memory: async () => curation.memory(),
    remember: ({ claim, key }) => curation.remember(claim, { key }),
    supersede: ({ id, claim, key }) => curation.supersede(id, claim, key),
    invalidate: async ({ id, reason }) => {
      await curation.retire(id, 'invalidate', reason);
      return { id };
    },
    expire: async ({ id, reason }) => {
      await curation.retire(id, 'expire', reason);
      return { id };
    },
    label: async (params) => ({ ids: await curation.label(params) }),
    train: async () => curation.train(() => performance.now()),
    setRankingMode: async ({ mode }) => {
      curation.setRankingMode(mode);
      return { mode };
    },
    health: async () => curation.health(),
  };
}

export function runCuration<N extends CurationOp>(
  context: SyncContext,
  curation: ProjectCuration,
  op: N,
  params: CurationOps[N]['params'],
): Promise<CurationOps[N]['result']> {
  const handler = handlers(context, curation)[op] as (params: CurationOps[N]['params']) => Promise<CurationOps[N]['result']>;
  return handler(params);
}

export const rankingModes: readonly RankingMode[] = ['off', 'shadow', 'active'];
