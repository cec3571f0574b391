/**
 * Words the benchmark corpus is made of. Deliberately free of names the secret rules look at
 * (password, secret, token, key, credential, auth), so no generated file is excluded as a secret.
 */

export const nouns = `account address adapter allocation archive asset audit balance batch billing binding blob bucket
budget buffer bundle cache calendar campaign candidate capacity catalog channel checkout chunk claim client cluster column
comment commit config connection consumer contract counter coupon cursor customer dashboard dataset deadline delivery
dependency deployment descriptor device digest document domain draft endpoint entity envelope event export feed fixture
flag forecast gateway graph handler header histogram inventory invoice job journal kernel label lease ledger listener
locale manifest marker merchant message metric migration mirror module node notification offset order package page parcel
partition payload payment peer pipeline policy pool portfolio preference profile project queue quota receipt record region
registry release replica report request resource response revision route rule schedule schema segment sensor session shard
shipment signal snapshot socket source span stream subscription supplier task template tenant thread ticket timeline topic
trace transaction transfer upload user vehicle version voucher warehouse webhook widget window worker workspace zone
carrier courier tariff refund dispute coverage premium claimant broker exchange instrument position quote settlement
sample cohort experiment variant survey respondent lesson course enrollment grade semester room booking guest reservation
menu recipe ingredient pantry route stop driver fleet telemetry firmware sensor alarm incident outage rollout canary`
  .split(/\s+/)
  .filter(Boolean);

export const verbs = `add aggregate allocate apply archive assign attach build calculate cancel check clear close collect compare
compile compute configure convert copy count create decode delete deliver detect dispatch emit encode enqueue ensure evaluate
expand export extract fetch filter find flush format generate handle hydrate import index init insert invalidate load lookup
map mark merge migrate normalize notify open parse persist poll prepare process publish purge push query read rebuild
reconcile record refresh register reload remove render replay reset resolve restore retry rotate route save scan schedule
serialize snapshot sort split start stop store submit sync throttle track transform trim update upload validate verify watch
write settle refund quote book enroll grade reserve cook dispatch acknowledge escalate rollback promote`
  .split(/\s+/)
  .filter(Boolean);

export const adjectives = `active async batched cached cold composite current default deferred dirty dynamic empty expired external
failed global hidden idle inbound initial internal latest legacy local merged nested next offline outbound partial pending
primary public queued raw recent remote shared stale static temporary unique valid virtual warm archived blocked confirmed
delayed detached draining frozen orphaned paused rejected scheduled suspended throttled verified`
  .split(/\s+/)
  .filter(Boolean);

export const classSuffixes = [
  'Service',
  'Manager',
  'Store',
  'Client',
  'Controller',
  'Repository',
  'Builder',
  'Resolver',
  'Handler',
  'Cache',
  'Queue',
  'Registry',
  'Factory',
  'Validator',
  'Scheduler',
  'Tracker',
  'Adapter',
  'Planner',
  'Importer',
  'Exporter',
];

export const errorPrefixes = ['could not', 'failed to', 'unable to', 'cannot', 'refusing to'];

export const people = [
  'amara',
  'bjorn',
  'chen',
  'dana',
  'emeka',
  'farah',
  'goran',
  'hana',
  'ivo',
  'jules',
  'kofi',
  'lena',
  'mateo',
  'noor',
  'oskar',
  'priya',
];

export const statuses = ['active', 'pending', 'expired', 'failed', 'queued', 'archived', 'draft', 'settled', 'rejected', 'paused'];
