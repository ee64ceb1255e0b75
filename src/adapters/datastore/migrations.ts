import type { Knex } from 'knex';

/** Schema history, in code so the same list runs on SQLite and PostgreSQL. Append only. */
export const MIGRATIONS: Record<string, { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> }> = {
  '0001_concepts': {
    async up(knex) {
      await knex.schema.createTable('concepts', (t) => {
        t.integer('id').primary();
        t.string('name', 200).notNullable().unique();
        t.string('ui_label', 200).notNullable();
        t.text('ui_description').notNullable();
        t.string('category', 100).notNullable();
      });
      await knex.schema.createTable('concept_collections', (t) => {
        t.integer('concept_id').notNullable().references('concepts.id').onDelete('CASCADE');
        t.string('collection_id', 128).notNullable();
        t.text('properties').notNullable();
        t.primary(['concept_id', 'collection_id']);
      });
      await knex.schema.createTable('concept_processing', (t) => {
        t.increments('id');
        t.integer('concept_id').notNullable().references('concepts.id').onDelete('CASCADE');
        t.string('derived_indice', 200).notNullable();
        t.integer('dggs_refinement_level').notNullable();
        t.string('color_ramp', 100).nullable();
        t.text('notes').nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('concept_processing');
      await knex.schema.dropTable('concept_collections');
      await knex.schema.dropTable('concepts');
    },
  },
  '0002_orders_jobs': {
    async up(knex) {
      await knex.schema.createTable('orders', (t) => {
        t.increments('id');
        t.string('title', 200).nullable();
        t.string('status', 20).notNullable();
        t.string('created_at', 40).notNullable();
        t.string('updated_at', 40).notNullable();
      });
      await knex.schema.createTable('jobs', (t) => {
        t.bigIncrements('id');
        t.integer('order_id').unsigned().notNullable().references('orders.id').onDelete('CASCADE');
        t.string('status', 20).notNullable();
        t.string('collection', 128).notNullable();
        t.string('dggrs', 64).notNullable();
        t.string('zone_id', 64).notNullable();
        t.integer('zone_depth').notNullable();
        t.float('progress').notNullable().defaultTo(0);
        t.text('message').nullable();
        t.string('created_at', 40).notNullable();
        t.string('updated_at', 40).notNullable();
        t.index(['order_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('jobs');
      await knex.schema.dropTable('orders');
    },
  },
  '0003_jobs_that_run': {
    async up(knex) {
      await knex.schema.alterTable('orders', (t) => {
        t.string('owner', 128).notNullable().defaultTo('demo');
        t.string('collection', 128).nullable();
        t.integer('concept_id').nullable();
        t.string('dggrs', 64).nullable();
        t.index(['owner', 'status', 'id'], 'orders_owner_status_id');
        t.index(['owner', 'id'], 'orders_owner_id');
      });
      await knex.schema.alterTable('jobs', (t) => {
        t.text('properties').nullable();
        t.integer('concept_id').nullable();
        t.string('derived_indice', 200).nullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.boolean('queued').notNullable().defaultTo(false);
        t.string('started_at', 40).nullable();
        t.string('finished_at', 40).nullable();
        t.text('result').nullable();
        t.index(['order_id', 'status', 'id'], 'jobs_order_status_id');
        t.index(['status', 'queued', 'id'], 'jobs_status_queued_id');
      });
      await knex.schema.createTable('job_attempts', (t) => {
        t.bigInteger('job_id').notNullable().references('jobs.id').onDelete('CASCADE');
        t.integer('attempt').notNullable();
        t.string('worker', 200).notNullable();
        t.string('started_at', 40).notNullable();
        t.string('ended_at', 40).nullable();
        t.string('outcome', 20).notNullable();
        t.text('error').nullable();
        t.primary(['job_id', 'attempt']);
      });
      await knex.schema.createTable('api_tokens', (t) => {
        t.increments('id');
        t.string('owner', 128).notNullable();
        t.string('digest', 64).notNullable().unique();
        t.string('label', 200).nullable();
        t.string('created_at', 40).notNullable();
        t.string('revoked_at', 40).nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('api_tokens');
      await knex.schema.dropTable('job_attempts');
      await knex.schema.alterTable('jobs', (t) => {
        t.dropIndex([], 'jobs_status_queued_id');
        t.dropIndex([], 'jobs_order_status_id');
        t.dropColumns('properties', 'concept_id', 'derived_indice', 'attempts', 'queued', 'started_at', 'finished_at', 'result');
      });
      await knex.schema.alterTable('orders', (t) => {
        t.dropIndex([], 'orders_owner_id');
        t.dropIndex([], 'orders_owner_status_id');
        t.dropColumns('owner', 'collection', 'concept_id', 'dggrs');
      });
    },
  },
  '0004_order_job_counts': {
    async up(knex) {
      // Job counts per status kept on the order (JSON), so listing orders costs the page, not its jobs.
      await knex.schema.alterTable('orders', (t) => {
        t.text('job_counts').nullable();
      });
    },
    async down(knex) {
      await knex.schema.alterTable('orders', (t) => {
        t.dropColumn('job_counts');
      });
    },
  },
};

export const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return Object.keys(MIGRATIONS);
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name) {
    return MIGRATIONS[name]!;
  },
};
