import Foundation
@_spi(PositionalParameters) public import PostgresClient

/// Everything that defines schema `cardinal` of one database, in a form two databases can be compared by:
/// `pg_dump --schema-only` without its comments and settings lines, and one line per object from the catalog
/// with its definition, settings, security, owner, privileges and comment (which pg_dump prints in ways that
/// can hide a difference, such as a function's `SET` clauses in any order).
///
/// The monthly partitions of `events` are left out: they are made over time, and each keeps the column
/// comments its parent had on the day it was made, so two equal schemas migrated on different days differ there.
public struct SchemaSnapshot: Equatable, CustomStringConvertible {
    /// The normalized `pg_dump` text.
    public let dump: [String]
    /// One line per object.
    public let catalog: [String]

    /// Takes the snapshot of the database at `url`.
    public static func take(of url: String, connection: PostgresConnection) throws -> SchemaSnapshot {
        let pgDump = try TemporaryCluster.serverBinaries().appendingPathComponent("pg_dump")
        let result = try ChildProcess.run(
            pgDump, ["--schema-only", "--schema=cardinal", "--exclude-table=cardinal.events_y*", "--dbname=\(url)"])
        guard result.exitStatus == 0 else {
            throw TestEnvironment.SetupError(description: "pg_dump failed: \(result.standardError)")
        }
        let dump = result.standardOutput.split(separator: "\n").map(String.init).filter { line in
            !line.isEmpty && !line.hasPrefix("--") && !line.hasPrefix("SET ") && !line.hasPrefix("\\")
                && !line.hasPrefix("SELECT pg_catalog.set_config")
        }
        let catalog = try connection.query(catalogQuery, []).map { try $0.decode(String.self, at: 0) }
        return SchemaSnapshot(dump: dump, catalog: catalog)
    }

    /// The lines of `other` that differ from this one's, for a failure message.
    public func differences(from other: SchemaSnapshot) -> [String] {
        let mine = Set(dump + catalog), theirs = Set(other.dump + other.catalog)
        return mine.subtracting(theirs).sorted().map { "- " + $0 } + theirs.subtracting(mine).sorted().map { "+ " + $0 }
    }

    public var description: String {
        "\(dump.count) pg_dump lines, \(catalog.count) objects"
    }

    private static let catalogQuery = """
        with acl(object, privileges) as (
            select p.oid, (select string_agg(a.grantee::regrole::text || ':' || a.privilege_type, ',' order by 1)
                           from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) as a)
            from pg_proc as p
            union all
            select c.oid, (select string_agg(a.grantee::regrole::text || ':' || a.privilege_type, ',' order by 1)
                           from aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) as a)
            from pg_class as c
        )
        select line from (
            select concat_ws(' | ', 'function', p.oid::regprocedure, p.prokind, p.prosecdef, p.provolatile,
                             p.proparallel, p.procost, p.prorows, p.proleakproof, p.proisstrict,
                             array_to_string(array(select unnest(p.proconfig) order by 1), ','),
                             pg_get_userbyid(p.proowner), acl.privileges, obj_description(p.oid, 'pg_proc'),
                             md5(p.prosrc)) as line
            from pg_proc as p join acl on acl.object = p.oid
            where p.pronamespace = 'cardinal'::regnamespace
            union all
            select concat_ws(' | ', 'relation', c.oid::regclass, c.relkind, pg_get_userbyid(c.relowner),
                             acl.privileges, obj_description(c.oid, 'pg_class'),
                             case when c.relkind = 'v' then md5(pg_get_viewdef(c.oid)) end)
            from pg_class as c join acl on acl.object = c.oid
            where c.relnamespace = 'cardinal'::regnamespace and c.relname !~ '^events_y[0-9]{4}m[0-9]{2}'
            union all
            select concat_ws(' | ', 'column', c.oid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
                             a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attgenerated,
                             col_description(c.oid, a.attnum), a.attacl::text)
            from pg_class as c
                 join pg_attribute as a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                 left join pg_attrdef as d on d.adrelid = c.oid and d.adnum = a.attnum
            where c.relnamespace = 'cardinal'::regnamespace and c.relname !~ '^events_y[0-9]{4}m[0-9]{2}'
            union all
            select concat_ws(' | ', 'trigger', t.tgrelid::regclass, t.tgname, pg_get_triggerdef(t.oid),
                             t.tgenabled, obj_description(t.oid, 'pg_trigger'))
            from pg_trigger as t join pg_class as c on c.oid = t.tgrelid
            where c.relnamespace = 'cardinal'::regnamespace and not t.tgisinternal and t.tgparentid = 0
            union all
            select concat_ws(' | ', 'constraint', conrelid::regclass, conname, pg_get_constraintdef(oid),
                             obj_description(oid, 'pg_constraint'))
            from pg_constraint
            where connamespace = 'cardinal'::regnamespace and conrelid::regclass::text !~ 'events_y[0-9]{4}m[0-9]{2}'
            union all
            select concat_ws(' | ', 'schema', nspname, pg_get_userbyid(nspowner), nspacl::text,
                             obj_description(oid, 'pg_namespace'))
            from pg_namespace where nspname = 'cardinal'
            union all
            select concat_ws(' | ', 'default privileges', defaclrole::regrole, defaclnamespace::regnamespace,
                             defaclobjtype, defaclacl::text)
            from pg_default_acl
        ) as lines
        order by 1
        """
}
