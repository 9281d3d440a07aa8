from skillreel.cli.main import main

main()
