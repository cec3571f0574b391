import * as fs from 'node:fs';
import { sha256Hex } from '../hashing';
import { CurationInputError } from './errors';
import { featureVersion } from './features';
import { featureCount } from './log';
import type { LabelRecord } from './state';

/**
 * A bounded linear ranker trained only on the user's explicit labels. Training is plain
 * full-batch logistic regression in a fixed order with fixed constants: the same labels give the
 * same weights, and the same artifact bytes, on every run. Weights are clipped to ±4, so no single
 * feature can dominate and a model can never produce a non-finite score.
 */
export const modelSchema = 1;
export const modelAlgorithm = 'bounded-logistic-v1';

export type RankingMode = 'off' | 'shadow' | 'active';

export interface TrainingCounts {
  labels: number;
  useful: number;
  notUseful: number;
  queries: number;
  heldOutQueries: number;
  heldOutLabels: number;
}

/**
 * The gate a trained model must pass before `active` mode lets it reorder anything, measured on
 * held-out labels the model never trained on: ranking quality improves on the static order,
 * exact-identifier recall does not drop, the 95th percentile of one request's inference stays
 * within 10 ms, and repeated runs give the identical order.
 */
export interface PromotionReport {
  passed: boolean;
  reasons: string[];
  heldOutQueries: number;
  heldOutLabels: number;
  /** Mean NDCG@5 of the useful labels, static order and model order. */
  staticQuality: number;
  modelQuality: number;
  /** Of the useful exact matches, the share in the top 5. */
  staticExactRecall: number;
  modelExactRecall: number;
  p95Ms: number;
  repeatable: boolean;
}

export interface RankerModel {
  schema: number;
  features: string;
  algorithm: string;
  modelId: string;
  weights: number[];
  bias: number;
  training: TrainingCounts;
  /** The newest label trained on: the same labels give the same artifact, with no clock involved. */
  trainedThrough: string;
  promotion?: PromotionReport;
  checksum: string;
}

export interface TrainingOptions {
  minimumSamples: number;
  maximumSamples: number;
}

export const defaultTraining: TrainingOptions = { minimumSamples: 20, maximumSamples: 10_000 };

const weightBound = 4;
const iterations = 400;
const learningRate = 0.5;
const l2 = 0.001;

function round(value: number, digits = 6): number {
  const scale = 10 ** digits;
  const rounded = Math.round(value * scale) / scale;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** The labels a model learns from: the latest label per (request, candidate), oldest first, by id among equal times. */
export function uniqueLabels(labels: readonly LabelRecord[]): LabelRecord[] {
  const latest = new Map<string, LabelRecord>();
  const sorted = [...labels].sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const label of sorted) latest.set(`${label.query}\0${label.candidate}`, label);
  return [...latest.values()].sort((a, b) => (a.query < b.query ? -1 : a.query > b.query ? 1 : a.candidate < b.candidate ? -1 : 1));
}

/** Every fourth request (by hash order) is held out for the promotion gate; the model never trains on it. */
export function splitLabels(labels: readonly LabelRecord[]): { training: LabelRecord[]; heldOut: LabelRecord[] } {
  const queries = [...new Set(labels.map((label) => label.query))].sort();
  const heldOutQueries = new Set(queries.filter((_, index) => index % 4 === 3));
  return {
    training: labels.filter((label) => !heldOutQueries.has(label.query)),
    heldOut: labels.filter((label) => heldOutQueries.has(label.query)),
  };
}

export class TrainingRefusedError extends CurationInputError {
  constructor(message: string) {
    super(message);
    this.name = 'TrainingRefusedError';
  }
}

/** Trains on `training` (already unique and ordered); `heldOut` only counts in the artifact. */
export function trainModel(training: readonly LabelRecord[], heldOut: readonly LabelRecord[], options = defaultTraining): RankerModel {
  if (training.length < options.minimumSamples)
    throw new TrainingRefusedError(
      `Training needs at least ${options.minimumSamples} labels outside the held-out set; there are ${training.length}.`,
    );
  const samples = training.slice(0, options.maximumSamples);
  const useful = samples.filter((label) => label.label === 'useful').length;
  if (useful === 0 || useful === samples.length) throw new TrainingRefusedError('Training needs both useful and not-useful labels.');
  const weights = new Array<number>(featureCount).fill(0);
  let bias = 0;
  for (let iteration = 0; iteration < iterations; iteration++) {
    const gradient = new Array<number>(featureCount).fill(0);
    let biasGradient = 0;
    for (const sample of samples) {
      const target = sample.label === 'useful' ? 1 : 0;
      const error = sigmoid(linear(weights, bias, sample.features)) - target;
      for (let index = 0; index < featureCount; index++) gradient[index] += error * sample.features[index];
      biasGradient += error;
    }
    for (let index = 0; index < featureCount; index++) {
      const step = gradient[index] / samples.length + l2 * weights[index];
      weights[index] = clip(weights[index] - learningRate * step);
    }
    bias = clip(bias - (learningRate * biasGradient) / samples.length);
  }
  const training_: TrainingCounts = {
    labels: samples.length,
    useful,
    notUseful: samples.length - useful,
    queries: new Set(samples.map((label) => label.query)).size,
    heldOutQueries: new Set(heldOut.map((label) => label.query)).size,
    heldOutLabels: heldOut.length,
  };
  const trainedThrough = samples.reduce((latest, label) => (label.at > latest ? label.at : latest), samples[0].at);
  return seal({
    weights: weights.map((weight) => round(weight)),
    bias: round(bias),
    training: training_,
    trainedThrough,
  });
}

function clip(value: number): number {
  return Math.min(weightBound, Math.max(-weightBound, value));
}

function sigmoid(value: number): number {
  return 1 / (1 + Math.exp(-value));
}

function linear(weights: readonly number[], bias: number, features: readonly number[]): number {
  let sum = bias;
  for (let index = 0; index < featureCount; index++) sum += weights[index] * features[index];
  return sum;
}

/** The model's score of one feature vector, rounded so equal inputs order equally everywhere. */
export function modelScore(model: Pick<RankerModel, 'weights' | 'bias'>, features: readonly number[]): number {
  return round(linear(model.weights, model.bias, features), 9);
}

type ModelFields = Pick<RankerModel, 'weights' | 'bias' | 'training' | 'trainedThrough'> & { promotion?: PromotionReport };

/** The artifact with its fields in one fixed order, its id from the weights and its checksum over the rest. */
export function seal(fields: ModelFields): RankerModel {
  const modelId = sha256Hex(JSON.stringify([modelAlgorithm, featureVersion, fields.weights, fields.bias])).slice(0, 16);
  const payload = {
    schema: modelSchema,
    features: featureVersion,
    algorithm: modelAlgorithm,
    modelId,
    weights: fields.weights,
    bias: fields.bias,
    training: fields.training,
    trainedThrough: fields.trainedThrough,
    ...(fields.promotion ? { promotion: fields.promotion } : {}),
  };
  return { ...payload, checksum: sha256Hex(JSON.stringify(payload)) };
}

export function serializeModel(model: RankerModel): string {
  return `${JSON.stringify(model, null, 2)}\n`;
}

export type LoadedModel = { ok: true; model: RankerModel } | { ok: false; reason: 'missing' | 'corrupt' | 'incompatible'; detail: string };

/** Reads a model artifact; anything but an intact artifact of this schema is a reason to rank statically. */
export function loadModel(modelPath: string | undefined): LoadedModel {
  if (!modelPath) return { ok: false, reason: 'missing', detail: 'no model file for an in-memory index' };
  let text: string;
  try {
    const stat = fs.lstatSync(modelPath);
    if (!stat.isFile()) return { ok: false, reason: 'corrupt', detail: 'the model path is not a regular file' };
    if (stat.size > 1_000_000) return { ok: false, reason: 'corrupt', detail: 'the model file is too large' };
    text = fs.readFileSync(modelPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, reason: 'missing', detail: 'no trained model' };
    return { ok: false, reason: 'corrupt', detail: `unreadable (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  return parseModel(text);
}

export function parseModel(text: string): LoadedModel {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'corrupt', detail: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { ok: false, reason: 'corrupt', detail: 'not an object' };
  const record = value as Partial<RankerModel>;
  if (record.schema !== modelSchema || record.features !== featureVersion || record.algorithm !== modelAlgorithm)
    return { ok: false, reason: 'incompatible', detail: 'another schema, feature version or algorithm' };
  const { weights, bias, training, trainedThrough, promotion, checksum } = record;
  if (!Array.isArray(weights) || weights.length !== featureCount || !weights.every(isBoundedWeight) || !isBoundedWeight(bias))
    return { ok: false, reason: 'corrupt', detail: 'weights out of shape or bounds' };
  if (typeof training !== 'object' || typeof trainedThrough !== 'string') return { ok: false, reason: 'corrupt', detail: 'missing fields' };
  const resealed = seal({ weights, bias, training, trainedThrough, promotion });
  if (resealed.checksum !== checksum || resealed.modelId !== record.modelId)
    return { ok: false, reason: 'corrupt', detail: 'checksum mismatch' };
  return { ok: true, model: resealed };
}

function isBoundedWeight(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= weightBound;
}

/** Writes the artifact atomically (temp file + rename) with mode 0600. */
export function writeModel(modelPath: string, model: RankerModel): void {
  const temporary = `${modelPath}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, serializeModel(model), { mode: 0o600 });
  fs.renameSync(temporary, modelPath);
}
