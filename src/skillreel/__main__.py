from skillreel.cli.main import run

run()
