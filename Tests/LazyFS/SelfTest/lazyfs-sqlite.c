/* lazyfs-sqlite: SQLite in WAL mode on a lazyfs mount, for ci/lazyfs-selftest.
 *
 *   init DB              creates table t (id, v) in WAL mode
 *   write DB FULL|OFF    commits one row per transaction (ids from max(id)+1, sizes varying) until it
 *                        fails or is killed, printing "committed ID" after each COMMIT returned
 *   check DB LAST        after a cut: integrity_check is ok, ids are 1...max with no gap, and
 *                        max >= LAST (every reported commit is there); prints "rows N"
 *   pingpong DB ROUNDS   two processes take turns: each commits a row, and sees the other's
 *   contend DB N         two processes commit N rows each at once (locks, busy waits); 2N rows after
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static sqlite3 *db;

static void die(const char *what)
{
    fprintf(stderr, "lazyfs-sqlite[%d]: %s: %s\n", getpid(), what, db ? sqlite3_errmsg(db) : "no database");
    exit(1);
}

static void exec(const char *sql)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        die(sql);
}

static sqlite3_int64 query_int(const char *sql)
{
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK || sqlite3_step(stmt) != SQLITE_ROW)
        die(sql);
    sqlite3_int64 value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

static void open_db(const char *path, const char *sync)
{
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        die(path);
    sqlite3_busy_timeout(db, 20000);
    exec("PRAGMA journal_mode=WAL");
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA synchronous=%s", sync);
    exec(sql);
}

static void insert(sqlite3_stmt *stmt, sqlite3_int64 id, int bytes)
{
    exec("BEGIN IMMEDIATE");
    sqlite3_bind_int64(stmt, 1, id);
    sqlite3_bind_int(stmt, 2, bytes);
    if (sqlite3_step(stmt) != SQLITE_DONE)
        die("INSERT");
    sqlite3_reset(stmt);
    exec("COMMIT");
}

static sqlite3_stmt *prepare(const char *sql)
{
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
        die(sql);
    return stmt;
}

static int cmd_write(const char *path, const char *sync)
{
    open_db(path, sync);
    sqlite3_int64 id = query_int("SELECT coalesce(max(id), 0) FROM t");
    sqlite3_stmt *stmt = prepare("INSERT INTO t(id, v) VALUES (?1, randomblob(?2))");
    for (;;) {
        id++;
        insert(stmt, id, (int)(20 + (id * 7919) % 1200)); /* small rows of varying size */
        if (printf("committed %lld\n", (long long)id) < 0 || fflush(stdout) != 0)
            return 1;
    }
}

static int cmd_check(const char *path, long long last)
{
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        die(path);
    sqlite3_stmt *stmt = prepare("PRAGMA integrity_check");
    if (sqlite3_step(stmt) != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(stmt, 0), "ok") != 0) {
        fprintf(stderr, "lazyfs-sqlite: %s: integrity_check: %s\n", path, sqlite3_column_text(stmt, 0));
        return 1;
    }
    sqlite3_finalize(stmt);
    sqlite3_int64 count = query_int("SELECT count(*) FROM t"), max = query_int("SELECT coalesce(max(id), 0) FROM t");
    printf("rows %lld\n", (long long)count);
    if (count != max || max < last) {
        fprintf(stderr, "lazyfs-sqlite: %s: %lld rows, max id %lld, but %lld commits were reported\n", path,
                (long long)count, (long long)max, last);
        return 1;
    }
    sqlite3_close(db);
    return 0;
}

static void signal_byte(int fd) { (void)!write(fd, "x", 1); }
static void wait_byte(int fd)
{
    char c;
    if (read(fd, &c, 1) != 1)
        exit(1);
}

static int cmd_pingpong(const char *path, int rounds)
{
    open_db(path, "FULL");
    exec("CREATE TABLE IF NOT EXISTS pp(id INTEGER PRIMARY KEY, v BLOB); DELETE FROM pp");
    sqlite3_close(db);
    db = NULL;
    int a2b[2], b2a[2];
    if (pipe(a2b) || pipe(b2a))
        return 1;
    pid_t pid = fork();
    bool first = pid != 0; /* each process opens its own connection after the fork */
    open_db(path, "FULL");
    sqlite3_stmt *stmt = prepare("INSERT INTO pp(id, v) VALUES (?1, randomblob(?2))");
    for (int r = 0; r < rounds; r++) {
        if (!first) {
            wait_byte(a2b[0]);
            if (query_int("SELECT count(*) FROM pp") != 2 * r + 1) {
                fprintf(stderr, "lazyfs-sqlite: round %d: the second process does not see the first's commit\n", r);
                _exit(1);
            }
            insert(stmt, 2 * r + 2, 500);
            signal_byte(b2a[1]);
        } else {
            insert(stmt, 2 * r + 1, 500);
            signal_byte(a2b[1]);
            wait_byte(b2a[0]);
            if (query_int("SELECT count(*) FROM pp") != 2 * r + 2) {
                fprintf(stderr, "lazyfs-sqlite: round %d: the first process does not see the second's commit\n", r);
                return 1;
            }
        }
    }
    if (!first)
        _exit(0);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    printf("pingpong %d rounds ok\n", rounds);
    return 0;
}

static int cmd_contend(const char *path, int n)
{
    open_db(path, "FULL");
    exec("CREATE TABLE IF NOT EXISTS c(id INTEGER PRIMARY KEY AUTOINCREMENT, who INTEGER); DELETE FROM c");
    sqlite3_close(db);
    db = NULL;
    pid_t pids[2];
    for (int who = 0; who < 2; who++) {
        pids[who] = fork();
        if (pids[who] == 0) {
            open_db(path, "FULL");
            for (int i = 0; i < n; i++) {
                exec("BEGIN IMMEDIATE");
                char sql[64];
                snprintf(sql, sizeof sql, "INSERT INTO c(who) VALUES (%d)", who);
                exec(sql);
                exec("COMMIT");
            }
            _exit(0);
        }
    }
    for (int who = 0; who < 2; who++) {
        int status;
        waitpid(pids[who], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return 1;
    }
    open_db(path, "FULL");
    sqlite3_int64 count = query_int("SELECT count(*) FROM c");
    if (count != 2 * n) {
        fprintf(stderr, "lazyfs-sqlite: contend: %lld rows, not %d\n", (long long)count, 2 * n);
        return 1;
    }
    printf("contend %lld rows ok\n", (long long)count);
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 2 ? argv[1] : "";
    if (strcmp(cmd, "init") == 0 && argc == 3) {
        open_db(argv[2], "FULL");
        exec("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v BLOB)");
        sqlite3_close(db);
        return 0;
    }
    if (strcmp(cmd, "write") == 0 && argc == 4)
        return cmd_write(argv[2], argv[3]);
    if (strcmp(cmd, "check") == 0 && argc == 4)
        return cmd_check(argv[2], atoll(argv[3]));
    if (strcmp(cmd, "pingpong") == 0 && argc == 4)
        return cmd_pingpong(argv[2], atoi(argv[3]));
    if (strcmp(cmd, "contend") == 0 && argc == 4)
        return cmd_contend(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: see the comment at the top of Tests/LazyFS/SelfTest/lazyfs-sqlite.c\n");
    return 2;
}
