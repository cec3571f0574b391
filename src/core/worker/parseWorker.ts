// The parse pool's worker thread (bundled as dist/parseWorker.js): it serves jobs until terminated.
import { serveParseJobs } from './parseJobs';

serveParseJobs();
