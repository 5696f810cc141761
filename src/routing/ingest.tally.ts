import type { Logger } from "../shared/logger.ts";

/** Who an ingest was for, as the tally names it in the log. */
export interface TalliedSource {
  id: string;
  slug: string;
}

/** A refusal as the ingest URL answered it (e.g. 413 `payload_too_large`). */
export interface IngestRefusal {
  status: number;
  error: string;
}

interface Counts {
  slug: string;
  accepted: number;
  duplicates: number;
  /** Refusals by their `error` code. */
  refused: Map<string, number>;
  warned: boolean;
}

/**
 * What ingest tells the operator, as capture does and for the same reason: a sender's flood must
 * not flood the log. Ingests are counted per source and summarised at info once per interval
 * (`summarise`); the first refusal of a source in an interval is logged at warn at once, the rest
 * only in the summary. Nothing here touches the database.
 */
export function createIngestTally(logger: Logger) {
  let counts = new Map<string, Counts>();
  const entry = (source: TalliedSource) => {
    let found = counts.get(source.id);
    if (!found) {
      found = { slug: source.slug, accepted: 0, duplicates: 0, refused: new Map(), warned: false };
      counts.set(source.id, found);
    }
    return found;
  };
  return {
    accepted(source: TalliedSource): void {
      entry(source).accepted += 1;
    },
    duplicate(source: TalliedSource): void {
      entry(source).duplicates += 1;
    },
    refused(source: TalliedSource, refusal: IngestRefusal): void {
      const counted = entry(source);
      counted.refused.set(refusal.error, (counted.refused.get(refusal.error) ?? 0) + 1);
      if (counted.warned) return;
      counted.warned = true;
      logger.warn("ingest refused", {
        source_id: source.id,
        slug: source.slug,
        status: refusal.status,
        error: refusal.error,
        note: "further refusals of this source are counted in the next ingests summary",
      });
    },
    /** One info line per source that saw traffic since the last summary, then a fresh interval. */
    summarise(): void {
      const finished = counts;
      counts = new Map();
      for (const [sourceId, c] of finished) {
        logger.info("ingests", {
          source_id: sourceId,
          slug: c.slug,
          accepted: c.accepted,
          duplicates: c.duplicates,
          refused: Object.fromEntries(c.refused),
        });
      }
    },
  };
}

export type IngestTally = ReturnType<typeof createIngestTally>;
