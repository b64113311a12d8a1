// swift-tools-version: 6.0
// Cardinal: engagement analytics for in-app messaging.
//
// Dependencies point down only:
//   cardinald, cardinal  →  CardinalIngest, CardinalReports  →  CardinalStore  →  CardinalCore
//   cardinald, cardinal, CardinalIngest  →  CardinalLogging (lines on stderr; imports nothing of Cardinal)
//   cardinald, CardinalIngest  →  CardinalLifecycle (services started in order, stopped in reverse)  →  CardinalLogging
//   CardinalIngest → MicroHTTP (libmicrohttpd), Gzip (zlib); CardinalStore → PostgresClient (libpq)
// The three adapters are the only modules that import a C library.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Cardinal",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cardinald", targets: ["cardinald"]),
        .executable(name: "cardinal", targets: ["cardinal"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc"),

        // Thin, safe adapters: the only code that touches C pointers.
        .target(name: "PostgresClient", dependencies: ["CPostgreSQL"], swiftSettings: strictSettings),
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"], swiftSettings: strictSettings),
        .target(name: "Gzip", dependencies: ["CZlib"], swiftSettings: strictSettings),

        // Cardinal itself.
        .target(name: "CardinalCore", swiftSettings: strictSettings),
        .target(name: "CardinalLogging", swiftSettings: strictSettings),
        .target(name: "CardinalLifecycle", dependencies: ["CardinalLogging"], swiftSettings: strictSettings),
        .target(name: "CardinalStore", dependencies: ["CardinalCore", "PostgresClient"], swiftSettings: strictSettings),
        .target(name: "CardinalReports", dependencies: ["CardinalCore", "CardinalStore"], swiftSettings: strictSettings),
        .target(name: "CardinalIngest", dependencies: ["CardinalCore", "CardinalLifecycle", "CardinalLogging", "CardinalStore", "PostgresClient",
                                                 "MicroHTTP", "Gzip"],
                swiftSettings: strictSettings),
        .target(name: "ArgumentKit", swiftSettings: strictSettings),
        .executableTarget(name: "cardinald", dependencies: ["CardinalIngest", "CardinalCore", "CardinalLifecycle", "CardinalLogging",
                                                           "ArgumentKit", "CMalloc"],
                          swiftSettings: strictSettings),
        .executableTarget(name: "cardinal", dependencies: ["CardinalReports", "CardinalStore", "CardinalCore", "CardinalLogging", "ArgumentKit"],
                          swiftSettings: strictSettings),
        // `make experiment-simulation`: A/A experiments read daily, against the statistics of the control report.
        .executableTarget(name: "experiment-simulation", dependencies: ["CardinalReports", "CardinalStore"],
                          swiftSettings: strictSettings),

        // Unit tests: pure logic, no database, no network beyond loopback.
        .testTarget(name: "CardinalCoreTests", dependencies: ["CardinalCore"], swiftSettings: strictSettings),
        .testTarget(name: "CardinalReportsTests", dependencies: ["CardinalReports"], exclude: ["Fixtures"],
                    swiftSettings: strictSettings),
        .testTarget(name: "CardinalLoggingTests", dependencies: ["CardinalLogging"], swiftSettings: strictSettings),
        .testTarget(name: "CardinalLifecycleTests", dependencies: ["CardinalLifecycle", "CardinalLogging"],
                    swiftSettings: strictSettings),
        .testTarget(name: "CardinalIngestTests", dependencies: ["CardinalIngest", "CardinalCore", "CardinalStore"],
                    swiftSettings: strictSettings),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP"], swiftSettings: strictSettings),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient"], swiftSettings: strictSettings),
        .testTarget(name: "GzipTests", dependencies: ["Gzip"], swiftSettings: strictSettings),
        .testTarget(name: "ArgumentKitTests", dependencies: ["ArgumentKit"], swiftSettings: strictSettings),
        .testTarget(name: "CardinalStoreTests", dependencies: ["CardinalStore"], swiftSettings: strictSettings),

        // Shared by the integration and end-to-end tests: the database URL (no silent default), throwaway databases.
        .target(name: "TestSupport", dependencies: ["CardinalStore", "PostgresClient"], path: "Tests/TestSupport",
                swiftSettings: strictSettings),

        // Integration tests: need the private PostgreSQL (`make db`), CARDINAL_TEST_DATABASE_URL.
        .testTarget(name: "PostgresClientIntegrationTests", dependencies: ["PostgresClient"], swiftSettings: strictSettings),
        .testTarget(name: "CardinalStoreIntegrationTests", dependencies: ["CardinalStore", "PostgresClient", "TestSupport"],
                    swiftSettings: strictSettings),
        .testTarget(name: "CardinalReportsIntegrationTests",
                    dependencies: ["CardinalReports", "CardinalStore", "CardinalCore", "PostgresClient", "TestSupport"],
                    swiftSettings: strictSettings),

        // The control report's statistics against GrowthBook's gbstats: need CARDINAL_GBSTATS_PYTHON, the
        // virtualenv of scripts/gbstats/install.sh.
        .testTarget(name: "GrowthBookComparisonTests", dependencies: ["CardinalReports", "TestSupport"],
                    exclude: ["gbstats_engine.py"], swiftSettings: strictSettings),

        // End-to-end tests: the built `cardinald` and `cardinal` binaries against the private PostgreSQL.
        .testTarget(name: "EndToEndTests", dependencies: ["CardinalCore", "PostgresClient", "TestSupport", "Gzip"],
                    exclude: ["Snapshots"], swiftSettings: strictSettings),
    ]
)
