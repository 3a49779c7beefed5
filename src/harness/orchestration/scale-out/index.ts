// Public exports of scale-out: the job queue, the worker loop, and the coordinator's queued jobs.
export { BadJobMessageError, JobQueue, jobMessageOf, type JobMessage, type JobQueueOptions } from './queue.js';
export { causedBy, readJob, recordCrash, runJob, type JobResult, type RunContext, type RunJobOptions } from './run-job.js';
export { Worker, type CallerFor, type WorkerActivity, type WorkerOptions } from './worker.js';
export { QueuedJobs } from './remote.js';
export { workerCallers, type WorkerCallers } from './callers.js';
