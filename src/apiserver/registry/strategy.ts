import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import type { FieldError } from '../../api/validation/field-error.js';

/** Per-request context handed to strategies. */
export interface StrategyContext {
  now: Date;
}

/**
 * A Strategy is what makes one resource different from the generic store:
 * defaulting hooks, validation, which fields selectors may use, and how
 * deletion and status behave. The generic store does everything else.
 */
export interface Strategy {
  /** Spec changes bump metadata.generation (apps, batch, policy kinds). */
  tracksGeneration: boolean;
  /** PUT on a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** Called on create after defaulting, before validation (e.g. reset status). */
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void;
  /** Called on update of the main resource before validation. */
  prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  /** Called on update of a subresource (status, approval) before validation: what that subresource may not change. */
  prepareForSubresourceUpdate?(subresource: string, obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  validate(obj: KubeObject): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** The field set field selectors match against (always includes metadata.name/namespace). */
  selectableFields(obj: KubeObject): Record<string, string>;
  /**
   * Seconds a deletion waits before the object goes away (it gets a
   * deletionTimestamp meanwhile), or 0 to delete at once.
   */
  gracePeriodSeconds(obj: KubeObject, requested: number | undefined): number;
  /** Whether DELETE answers with the deleted object (true) or a Status (false). */
  returnDeletedObject: boolean;
  /** Marks an object being deleted (e.g. a namespace as Terminating); true keeps it until finalized. */
  prepareForDelete?(obj: KubeObject, ctx: StrategyContext): boolean;
  /** Whether an object with a deletionTimestamp may go away now (default: no finalizers left). */
  readyToDelete?(obj: KubeObject): boolean;
  /** Async work before a create is stored, e.g. allocating a cluster IP. */
  beforeCreate?(obj: KubeObject, dryRun: boolean): Promise<void>;
  /** Releases what beforeCreate took, after a delete (or a failed create). */
  afterDelete?(obj: KubeObject): Promise<void>;
  /** Releases what an update gave up (e.g. a node port the Service no longer has), once it is stored. */
  afterUpdate?(obj: KubeObject, old: KubeObject): Promise<void>;
  /** Subresources that update one part of the object (pods/ephemeralcontainers), by name. */
  partialUpdates?: Readonly<Record<string, PartialUpdate>>;
}

/** An update through a subresource that owns one part of the object (upstream: its own strategy). */
export interface PartialUpdate {
  /** The object to store: the current one with the owned part taken from the body. */
  take(body: KubeObject, current: KubeObject): KubeObject;
  /** Replaces the strategy's validateUpdate for this subresource. */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
}

export type StrategyFactory = (info: ResourceInfo) => Strategy;
