import { z } from 'zod';

/** page and pageSize of a paged list (the spec's case list: default 50, at most 100). */
export const pageQueryShape = {
  page: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(1),
  pageSize: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').default(50),
};
