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
